"""Pseudo-projective transformations (Nivre & Nilsson 2005, section 2;
Nilsson 2007, thesis section 3.1), on plain head and label arrays.

``projectivize`` replaces non-projective arcs by LIFTs (3.1.1): the arc j -> k
becomes i -> k where i -> j, one step at a time, always lifting
SMALLEST-NONP-ARC (the shortest non-projective arc, ties broken from left to
right) until the tree is projective. The lifts are recorded in the labels by
one of four encodings (thesis Table 3.1), for the lifted label LL of the arc
i -> k and the path labels PL of the arcs lifted over:

=============  ============  ==========
encoding       LL            PL
=============  ============  ==========
baseline       d             p
head           d↑h           p
path           d↑            p↓
head+path      d↑h           p↓
=============  ============  ==========

d is the arc's own label, h the label of its syntactic head (the original
head). UD labels are ``[a-z]+(:[a-z]+)?``, so the marks ↑ and ↓ cannot clash
with them. ``deprojectivize`` inverts by the breadth-first, left-to-right
search of 3.1.3, with its back-off.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.errors import Errors, UserError
from spacy_planar.trees.algorithms import nonprojective_arcs

LIFT_MARK = "\u2191"  # ↑: this arc was lifted (LL)
PATH_MARK = "\u2193"  # ↓: an arc was lifted over this one (PL)
ENCODINGS = ("baseline", "head", "path", "head+path")


def check_encoding(encoding: str) -> str:
    if encoding not in ENCODINGS:
        raise UserError(Errors.E050.format(name=encoding, options=", ".join(ENCODINGS)))
    return encoding


class Label(NamedTuple):
    """A decorated label taken apart: ``base↑head↓``."""

    base: str
    lifted: bool = False
    head: str = ""
    path: bool = False

    def __str__(self) -> str:
        s = self.base
        if self.lifted:
            s += LIFT_MARK + self.head
        if self.path:
            s += PATH_MARK
        return s


def parse_label(label: str) -> Label:
    path = label.endswith(PATH_MARK)
    if path:
        label = label[:-1]
    base, lifted, head = label.partition(LIFT_MARK)
    return Label(base, bool(lifted), head, path)


def is_decorated(label: str) -> bool:
    return LIFT_MARK in label or PATH_MARK in label


def undecorate(label: str) -> str:
    """The plain label of a decorated one (``obl↑nsubj↓`` -> ``obl``)."""
    return label.split(LIFT_MARK, 1)[0].rstrip(PATH_MARK)


def lift(heads: np.ndarray, k: int) -> int:
    """LIFT(j -> k) = i -> k where i -> j (thesis 3.1.1), in place on a padded
    head array; returns j, the word the arc was lifted over."""
    j = int(heads[k])
    heads[k] = heads[j]
    return j


def smallest_nonprojective_arc(heads: np.ndarray) -> Optional[int]:
    """SMALLEST-NONP-ARC: the dependent of the shortest non-projective arc,
    ties broken from left to right; None if the tree is projective."""
    nonproj = np.flatnonzero(nonprojective_arcs(heads[1:])) + 1
    if len(nonproj) == 0:
        return None
    h = heads[nonproj]
    span = np.abs(h - nonproj)
    left = np.minimum(h, nonproj)
    return int(nonproj[np.lexsort((left, span))[0]])


@dataclass
class Projectivized:
    heads: List[int]
    labels: List[str]
    lifts: List[int]  # lifts per arc (0 for arcs left in place)


def projectivize(heads: Sequence[int], labels: Sequence[str], encoding: str) -> Projectivized:
    """PROJECTIVIZE(G) of thesis 3.1.1 with the labels of ``encoding``."""
    check_encoding(encoding)
    n = len(heads)
    h = np.empty(n + 1, dtype=np.int64)
    h[0] = -1
    h[1:] = heads
    lifts = [0] * (n + 1)
    path = set()
    while True:
        k = smallest_nonprojective_arc(h)
        if k is None:
            break
        path.add(lift(h, k))
        lifts[k] += 1
    out = list(labels)
    if encoding != "baseline":
        for k in range(1, n + 1):
            lifted = lifts[k] > 0
            on_path = k in path and encoding in ("path", "head+path")
            if not lifted and not on_path:
                continue
            head_label = labels[heads[k - 1] - 1] if lifted and encoding in ("head", "head+path") else ""
            out[k - 1] = str(Label(labels[k - 1], lifted, head_label, on_path))
    return Projectivized([int(x) for x in h[1:]], out, lifts[1:])


def _children(h: np.ndarray) -> List[List[int]]:
    kids: List[List[int]] = [[] for _ in range(len(h))]
    for d in range(1, len(h)):
        kids[h[d]].append(d)
    return kids


def _search(h: np.ndarray, parsed: List[Label], k: int, mode: str) -> Optional[int]:
    """Breadth-first, left-to-right search for the syntactic head of the lifted
    arc h[k] -> k among the words below its linear head, outside k's subtree
    (thesis 3.1.3). ``mode``: 'head' (the candidate's label is h), 'path' (only
    along ↓ arcs, to a ↓ arc with no ↓ arc below it), 'head+path' (both)."""
    want = parsed[k].head
    follow_path = mode != "head"
    kids = _children(h)
    queue = deque(kids[h[k]])
    while queue:
        m = queue.popleft()
        if m == k:
            continue
        lab = parsed[m]
        if follow_path and not lab.path:
            continue
        below = [c for c in kids[m] if c != k]
        if mode == "head":
            ok = lab.base == want
        else:
            ok = not any(parsed[c].path for c in below) and (mode == "path" or lab.base == want)
        if ok:
            return m
        queue.extend(below)
    return None


def deprojectivize(heads: Sequence[int], labels: Sequence[str], encoding: str) -> Tuple[List[int], List[str]]:
    """The inverse transformation of thesis 3.1.3.

    Lifted arcs (labels with ↑) are taken from left to right; each searches
    for its syntactic head. Back-off: while some search succeeds, the failed
    ones are tried again (a repaired path may now lead to them); head+path then
    relaxes to the head search (any path) and goes on the same way; an arc whose
    search still fails keeps its linear head with the plain label d. Finally
    path marks are removed. Always returns a tree over the same words: a
    syntactic head is searched below the linear head and outside the arc's
    own subtree, so no cycle can arise.
    """
    check_encoding(encoding)
    n = len(heads)
    h = np.empty(n + 1, dtype=np.int64)
    h[0] = -1
    h[1:] = heads
    parsed = [Label("")] + [parse_label(x) for x in labels]
    pending = [k for k in range(1, n + 1) if parsed[k].lifted]
    modes = {"baseline": [], "head": ["head"], "path": ["path"], "head+path": ["head+path", "head"]}[encoding]
    if encoding == "baseline":
        pending = []
    progress = True
    while pending and progress:
        progress = False
        for mode in modes:
            changed = True
            while pending and changed:
                changed = False
                still = []
                for k in pending:
                    m = _search(h, parsed, k, mode)
                    if m is None:
                        still.append(k)
                        continue
                    h[k] = m
                    parsed[k] = parsed[k]._replace(lifted=False, head="")
                    changed = progress = True
                pending = still
            if progress:
                break  # a relaxed success may repair paths for the strict search
    return [int(x) for x in h[1:]], [p.base for p in parsed[1:]]
