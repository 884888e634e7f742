"""The best projective tree of a sentence from a score per (head, dependent) pair: Eisner's
(1996) cubic dynamic program over spans, the projective decoder of graph-based parsers (McDonald et
al. 2005, section 3.1; Dozat & Manning 2017 decode with MST or Eisner alike).

Scores are ``scores[i, j]`` for word i + 1 taking head j (0: the root), (n, n + 1), as for
``trees.mst``. Spans of one width are computed together (numpy over every start and split point),
so the Python loop runs n times a sentence. With ``single_root``, the root's right span is
complete only over the whole sentence: the root takes exactly one dependent (the usual
restriction, exact). Heads are CoNLL-U's (1-based, 0 for the root); no spaCy here.
"""
from __future__ import annotations

from typing import List

import numpy as np

NONE = -np.inf


def best_projective_tree(scores: np.ndarray, single_root: bool = True) -> List[int]:
    """The heads of the best-scoring projective tree over ``scores`` (n, n + 1), with one root
    word under ``single_root``."""
    n = scores.shape[0]
    if not n:
        return []
    arc = np.full((n + 1, n + 1), NONE)  # arc[h, d]
    arc[:, 1:] = np.asarray(scores, dtype=np.float64).T
    tables = _spans(arc, single_root)
    heads = [0] * (n + 1)
    _backtrack(tables, 0, n, "right", True, heads)
    return heads[1:]


def _spans(arc: np.ndarray, single_root: bool):
    """Eisner's four tables (complete / incomplete, head on the left / right) with their best
    split points, every span (s, t) of width w from the spans narrower than it."""
    size = arc.shape[0]
    n = size - 1
    c_right, c_left, i_right, i_left = (np.full((size, size), NONE) for _ in range(4))
    np.fill_diagonal(c_right, 0.0)
    np.fill_diagonal(c_left, 0.0)
    split = {name: np.zeros((size, size), dtype=np.int64) for name in ("cr", "cl", "ir", "il")}
    for w in range(1, size):
        s = np.arange(0, size - w)
        t = s + w
        k = s[:, None] + np.arange(w)[None, :]  # s .. t - 1
        joined = c_right[s[:, None], k] + c_left[k + 1, t[:, None]]
        best = joined.argmax(axis=1)
        value = joined[np.arange(len(s)), best]
        i_right[s, t] = value + arc[s, t]  # s heads t
        i_left[s, t] = np.where(s > 0, value + arc[t, s], NONE)  # t heads s; the root heads nothing from the right
        split["ir"][s, t] = split["il"][s, t] = s + best
        left = c_left[s[:, None], k] + i_left[k, t[:, None]]  # s .. k under k, k heads by t
        best = left.argmax(axis=1)
        c_left[s, t] = left[np.arange(len(s)), best]
        split["cl"][s, t] = s + best
        k1 = k + 1  # s + 1 .. t
        right = i_right[s[:, None], k1] + c_right[k1, t[:, None]]
        best = right.argmax(axis=1)
        c_right[s, t] = right[np.arange(len(s)), best]
        split["cr"][s, t] = s + 1 + best
        if single_root and w < n:
            c_right[0, w] = NONE  # the root's span is complete over the whole sentence only
    return split


def _backtrack(split, s: int, t: int, direction: str, complete: bool, heads: List[int]) -> None:
    """The arcs of the best span (s, t) into ``heads`` (a stack, not recursion: long sentences)."""
    todo = [(s, t, direction, complete)]
    while todo:
        s, t, direction, complete = todo.pop()
        if s == t:
            continue
        if complete:
            if direction == "right":
                k = split["cr"][s, t]
                todo += [(s, k, "right", False), (k, t, "right", True)]
            else:
                k = split["cl"][s, t]
                todo += [(s, k, "left", True), (k, t, "left", False)]
        else:
            k = split["ir"][s, t]
            if direction == "right":
                heads[t] = s
            else:
                heads[s] = t
            todo += [(s, k, "right", True), (k + 1, t, "left", True)]
