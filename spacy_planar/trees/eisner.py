"""The best projective tree of a sentence from a score per (head, dependent) pair: Eisner's
(1996) cubic dynamic program over spans, the projective decoder of graph-based parsers (McDonald et
al. 2005, section 3.1; Dozat & Manning 2017 decode with MST or Eisner alike).

Scores are ``scores[i, j]`` for word i + 1 taking head j (0: the root), (n, n + 1), as for
``trees.mst``. Spans of one width are computed together (numpy over every sentence of a batch,
start and split point), so the Python loop runs n times a batch (n: its longest sentence's). With
``single_root``, the root's right span is complete only over the whole sentence: the root takes
exactly one dependent (the usual restriction, exact). Heads are CoNLL-U's (1-based, 0 for the
root); no spaCy here.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

NONE = -np.inf


def best_projective_tree(scores: np.ndarray, single_root: bool = True) -> List[int]:
    """The heads of the best-scoring projective tree over ``scores`` (n, n + 1), with one root
    word under ``single_root``."""
    return best_projective_trees([scores], single_root)[0]


def best_projective_trees(scores: Sequence[np.ndarray], single_root: bool = True) -> List[List[int]]:
    """``best_projective_tree`` of each sentence's scores, the tables of sentences of similar length
    computed together (``_groups``; padded to a group's longest: a span of a sentence never reaches
    its pad, so the pad changes nothing)."""
    lengths = [s.shape[0] for s in scores]
    out: List[List[int]] = [[] for _ in scores]
    order = sorted((b for b, n in enumerate(lengths) if n), key=lengths.__getitem__)
    for group in _groups(order, lengths):
        for b, heads in zip(group, _decode([scores[b] for b in group], single_root)):
            out[b] = heads
    return out


def _groups(order: List[int], lengths: List[int]) -> List[List[int]]:
    """``order`` (sentences by length) cut where a sentence is longer than 1.25 times its group's
    first plus 4 words: the cubic tables of a group cost its longest sentence's size for each
    sentence, the Python loop a step per width for each group."""
    groups: List[List[int]] = []
    for b in order:
        if groups and lengths[b] <= 1.25 * lengths[groups[-1][0]] + 4:
            groups[-1].append(b)
        else:
            groups.append([b])
    return groups


def _decode(scores: Sequence[np.ndarray], single_root: bool) -> List[List[int]]:
    """The best projective trees of sentences of one or more words, their tables together."""
    lengths = [s.shape[0] for s in scores]
    size = max(lengths) + 1
    arc = np.full((len(scores), size, size), NONE)  # arc[b, h, d]
    for b, (n, sentence) in enumerate(zip(lengths, scores)):
        arc[b, :n + 1, 1:n + 1] = np.asarray(sentence, dtype=np.float64).T
    split = _spans(arc, np.asarray(lengths), single_root)
    out = []
    for b, n in enumerate(lengths):
        heads = [0] * (n + 1)
        _backtrack({name: table[b] for name, table in split.items()}, 0, n, "right", True, heads)
        out.append(heads[1:])
    return out


def _spans(arc: np.ndarray, lengths: np.ndarray, single_root: bool):
    """Eisner's four tables (complete / incomplete, head on the left / right) with their best
    split points, for every sentence b, every span (s, t) of width w from the spans narrower
    than it."""
    batch, size = arc.shape[0], arc.shape[1]
    c_right, c_left, i_right, i_left = (np.full((batch, size, size), NONE) for _ in range(4))
    c_right[:, np.arange(size), np.arange(size)] = 0.0
    c_left[:, np.arange(size), np.arange(size)] = 0.0
    split = {name: np.zeros((batch, size, size), dtype=np.int64) for name in ("cr", "cl", "ir", "il")}
    for w in range(1, size):
        s = np.arange(0, size - w)
        t = s + w
        k = s[:, None] + np.arange(w)[None, :]  # s .. t - 1
        value = _best(c_right[:, s[:, None], k] + c_left[:, k + 1, t[:, None]], split["ir"], s, t, 0)
        split["il"][:, s, t] = split["ir"][:, s, t]
        i_right[:, s, t] = value + arc[:, s, t]  # s heads t
        i_left[:, s, t] = np.where(s > 0, value + arc[:, t, s], NONE)  # t heads s; the root: nothing from the right
        c_left[:, s, t] = _best(c_left[:, s[:, None], k] + i_left[:, k, t[:, None]], split["cl"], s, t, 0)
        c_right[:, s, t] = _best(i_right[:, s[:, None], k + 1] + c_right[:, k + 1, t[:, None]], split["cr"], s, t, 1)
        if single_root:
            c_right[lengths > w, 0, w] = NONE  # the root's span is complete over the whole sentence only
    return split


def _best(joined: np.ndarray, split: np.ndarray, s: np.ndarray, t: np.ndarray, offset: int) -> np.ndarray:
    """The best of each span's ways (``joined``: (batch, spans, split points)), its split point
    (``s + offset`` + the best way's index) kept in ``split``."""
    best = joined.argmax(axis=2)
    split[:, s, t] = s + offset + best
    return np.take_along_axis(joined, best[..., None], 2)[..., 0]


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
