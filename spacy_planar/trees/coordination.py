"""Coordination in the styles of Nilsson (2007, section 3.2) and back, on plain head / label
lists (words 1..n, head 0: the root), and the marks the transforms leave in labels for their
inverses (``transforms.py`` names each transform and documents the styles)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Sequence

from spacy_planar.trees.algorithms import Tree

SHARED_MARK = "+"  # r+: a dependent of the whole coordination (τ_c+)
NEST_MARK = "^"  # conj^: the second conjunct of a coordination nested in a conjunct (MS, CS)
PS_MARK = "~"  # conj~L: C1 in PS, its head conjunction's label L when that was not "cc"
OWN_MARK = "="  # punct=: in MS, a conjunct's own cc / punct inside the gap after it (not a separator of the gap)
SEPARATORS = ("cc", "punct")


def base(label: str) -> str:
    """The universal part of a label: ``aux:pass`` -> ``aux``."""
    return label.split(":")[0]


def is_conj(label: str) -> bool:
    return label.split(PS_MARK)[0].rstrip(NEST_MARK).split(":")[0] == "conj"


def children_of(heads: Sequence[int]) -> List[List[int]]:
    out: List[List[int]] = [[] for _ in range(len(heads) + 1)]
    for d, h in enumerate(heads, 1):
        out[h].append(d)
    return out


def _depth(heads: Sequence[int], w: int) -> int:
    d = 0
    seen = set()
    while w and w not in seen:
        seen.add(w)
        w = heads[w - 1]
        d += 1
    return d


# --- coordination -------------------------------------------------------------------

@dataclass
class Coordination:
    """One coordination of a UD tree, its words classified as section 3.2.1
    does: conjuncts C1..Cn, separators per gap (between C_i and C_i+1), and
    the dependents of the whole coordination D left of C1 and right of Cn."""

    conjuncts: List[int]
    separators: List[List[int]]
    shared_left: List[int] = field(default_factory=list)
    shared_right: List[int] = field(default_factory=list)
    inside: List[int] = field(default_factory=list)  # C1's dependents right of C2, left of Cn


def find_coordinations(heads: Sequence[int], labels: Sequence[str]) -> List[Coordination]:
    """Every coordination of a UD tree: a word with ``conj`` dependents to
    its right is C1; the separators of a gap are the ``cc`` / ``punct``
    dependents of C_i+1 between C_i and C_i+1. Nested coordinations are
    coordinations of their own (C1 a conjunct of the outer one)."""
    kids = children_of(heads)
    out = []
    for c1 in range(1, len(heads) + 1):
        later = [d for d in kids[c1] if d > c1 and is_conj(labels[d - 1])]
        if not later:
            continue
        conjuncts = [c1] + later
        seps = [[d for d in kids[right] if left < d < right and base(labels[d - 1]) in SEPARATORS]
                for left, right in zip(conjuncts, conjuncts[1:])]
        taken = set(conjuncts)
        shared = [d for d in kids[c1] if d not in taken and base(labels[d - 1]) not in SEPARATORS]
        out.append(Coordination(conjuncts, seps, [d for d in shared if d < c1],
                                [d for d in shared if d > conjuncts[-1]],
                                [d for d in shared if conjuncts[1] < d < conjuncts[-1]]))
    return out


def _mark_shared(labels: List[str], words: Iterable[int]) -> None:
    for d in words:
        labels[d - 1] += SHARED_MARK


def _unmark(label: str) -> str:
    return label[:-len(SHARED_MARK)] if label.endswith(SHARED_MARK) else label


def coordination_to_chain(heads: Sequence[int], labels: Sequence[str], style: str = "ms",
                          shared: bool = False) -> Tree:
    """UD -> MS (``style`` "ms") or CS ("cs"); ``shared``: the + variant."""
    h, l = list(heads), list(labels)
    kids = children_of(heads)
    for co in find_coordinations(heads, labels):
        c = co.conjuncts
        for i, (left, right) in enumerate(zip(c, c[1:])):
            seps = co.separators[i]
            if style == "ms":
                for s in seps:
                    h[s - 1] = left
                h[right - 1] = seps[-1] if seps else left
                # the left conjunct's own cc / punct in the gap now sits among the gap's
                # separators: marked, so that the inverse leaves it where it is
                for d in kids[left]:
                    if left < d < right and base(labels[d - 1]) in SEPARATORS and d not in seps:
                        l[d - 1] = labels[d - 1] + OWN_MARK
            else:
                h[right - 1] = left
        if is_conj(labels[c[0] - 1]) and heads[c[0] - 1] > 0:  # nested in a conjunct of another
            l[c[1] - 1] = labels[c[1] - 1] + NEST_MARK
        # C1's dependents among the later conjuncts go to the conjunct closest to their left
        # (arc transformation 4; else the chain would cross them), and so do those right of Cn
        # in the + variant; marked r+ for the inverse
        moved = co.inside + (co.shared_right if shared else [])
        for d in moved:
            h[d - 1] = max(x for x in c if x < d)
        _mark_shared(l, moved)
    for y in range(1, len(heads) + 1):  # a conj on a cc / punct that the chain did not put there: marked,
        x = heads[y - 1]  # the inverse would read it as a link of the chain
        if x > 0 and h[y - 1] == x and is_conj(l[y - 1]) and base(labels[x - 1]) in SEPARATORS:
            l[y - 1] += OWN_MARK
    return h, l


def chain_to_coordination(heads: Sequence[int], labels: Sequence[str], style: str = "ms",
                          shared: bool = False) -> Tree:
    """The inverse of ``coordination_to_chain`` (section 3.2.2): each
    ``conj`` word's previous conjunct and the separators between them, its
    C1 found by climbing the chain (a nested coordination starts at a
    ``conj^`` word); then conjuncts back on C1, separators on the conjunct
    that follows them, ``r+`` dependents back on C1."""
    h, l = list(heads), list(labels)
    kids = children_of(heads)
    prev: Dict[int, int] = {}  # conjunct -> the conjunct before it
    seps: Dict[int, List[int]] = {}
    for y in range(1, len(heads) + 1):
        if not is_conj(labels[y - 1]) or not 0 < heads[y - 1] < y:  # the chain's links go rightwards
            continue
        x = heads[y - 1]
        if style == "ms" and base(labels[x - 1]) in SEPARATORS and not is_conj(labels[x - 1]) and heads[x - 1] > 0:
            prev[y] = heads[x - 1]
            seps[y] = [x]
        else:
            prev[y] = x
            seps[y] = []
    if style == "ms":  # a gap's separators: the left conjunct's, after its previous continuation
        after: Dict[int, int] = {}
        for y in sorted(prev):
            left = prev[y]
            if seps[y]:
                start = after.get(left, left)
                seps[y] = [d for d in kids[left] if start < d < y and base(labels[d - 1]) in SEPARATORS]
            after[left] = y

    first: Dict[int, int] = {}

    def c1_of(y: int, guard: int = 0) -> int:
        if y not in first:
            x = prev[y]
            chained = x in prev and not labels[y - 1].endswith(NEST_MARK) and guard < len(heads)
            first[y] = c1_of(x, guard + 1) if chained else x
        return first[y]

    for y in prev:
        h[y - 1] = c1_of(y)
        l[y - 1] = labels[y - 1].rstrip(NEST_MARK)
        if style == "ms":
            for s in seps[y]:
                h[s - 1] = y
    for d in range(1, len(heads) + 1):
        if labels[d - 1].endswith(SHARED_MARK):
            hd = heads[d - 1]
            h[d - 1] = c1_of(hd) if hd in prev else hd
            l[d - 1] = _unmark(labels[d - 1])
        elif labels[d - 1].endswith(OWN_MARK):
            l[d - 1] = labels[d - 1][:-len(OWN_MARK)]
    return h, l


def coordination_to_ps(heads: Sequence[int], labels: Sequence[str], shared: bool = False) -> Tree:
    """UD -> PS: the rightmost ``cc`` separator H heads the coordination;
    outer coordinations first, so that a nested one's H takes its C1's head
    as the outer transform left it."""
    h, l = list(heads), list(labels)
    found = find_coordinations(heads, labels)
    for co in sorted(found, key=lambda co: _depth(heads, co.conjuncts[0])):
        c = co.conjuncts
        ccs = [s for gap in co.separators for s in gap if base(labels[s - 1]) == "cc"]
        if not ccs:
            continue
        top = ccs[-1]
        gaps = {s for gap in co.separators for s in gap}
        for d in children_of(heads)[top]:  # its own cc / punct, which the inverse would take for separators
            if c[0] < d < c[-1] and base(labels[d - 1]) in SEPARATORS and d not in gaps:
                l[d - 1] = labels[d - 1] + OWN_MARK
        h[top - 1], l[top - 1] = h[c[0] - 1], l[c[0] - 1]
        h[c[0] - 1] = top
        l[c[0] - 1] = "conj" if labels[top - 1] == "cc" else "conj" + PS_MARK + labels[top - 1]
        for w in c[1:] + [s for gap in co.separators for s in gap if s != top]:
            h[w - 1] = top
        if shared:
            for d in co.shared_left + co.inside + co.shared_right:
                h[d - 1] = top
            _mark_shared(l, co.shared_left + co.inside + co.shared_right)
    for y in range(1, len(heads) + 1):  # a conj left of its head that PS did not put there: marked,
        if h[y - 1] == heads[y - 1] > y and is_conj(l[y - 1]):  # the inverse would read a PS head
            l[y - 1] += OWN_MARK
    return h, l


def ps_to_coordination(heads: Sequence[int], labels: Sequence[str], shared: bool = False) -> Tree:
    """The inverse of ``coordination_to_ps``: a word with a ``conj``
    dependent to its left heads a coordination in PS (UD's conjuncts are
    always right of C1); innermost first."""
    h, l = list(heads), list(labels)
    kids = children_of(heads)
    tops = [w for w in range(1, len(heads) + 1) if any(d < w and is_conj(labels[d - 1]) for d in kids[w])]
    for top in sorted(tops, key=lambda w: -_depth(heads, w)):
        kids = children_of(h)
        conjuncts = sorted(d for d in kids[top] if is_conj(l[d - 1]))
        c1 = conjuncts[0]
        own = l[c1 - 1].split(PS_MARK, 1)
        top_label = own[1] if len(own) > 1 else "cc"
        h[c1 - 1], l[c1 - 1] = h[top - 1], l[top - 1]
        for c in conjuncts[1:]:
            h[c - 1] = c1
        right = [c for c in conjuncts if c > top]
        h[top - 1], l[top - 1] = (right[0] if right else c1), top_label
        for d in kids[top]:
            if d in conjuncts:
                continue
            if shared and l[d - 1].endswith(SHARED_MARK):
                h[d - 1], l[d - 1] = c1, _unmark(l[d - 1])
            elif c1 < d < conjuncts[-1] and base(l[d - 1]) in SEPARATORS:
                h[d - 1] = min(c for c in conjuncts if c > d)
            elif l[d - 1].endswith(OWN_MARK):
                l[d - 1] = l[d - 1][:-len(OWN_MARK)]
    return h, l


def clean_label(label: str) -> str:
    """A label without the transforms' marks."""
    label = label.split(PS_MARK, 1)[0]
    return _unmark(label).rstrip(NEST_MARK).rstrip(OWN_MARK)
