"""Coordination and verb-group transformations for UD trees (Nilsson 2007,
sections 3.2-3.4), on plain head / label lists (words 1..n, head 0: the
root), with their inverses.

UD annotates coordination with the first conjunct C1 as its head: later
conjuncts hang on C1 as ``conj``, a ``cc`` or separating ``punct`` on the
conjunct that follows it, shared dependents on C1; auxiliaries (``aux``,
``aux:pass``; ``cop`` as an option) hang on the main verb. That is neither
of the thesis' starting points (PS, conjunction as head), so each transform
here goes from UD to one of the thesis' styles (section 2.2.2, Figure 2.3):

- ``coordination-ms``: Mel'čuk style, the chain C1 -> S -> C2 -> S -> C3
  (section 3.2.1, arc transformations 1-3: each separator between C_i and
  C_i+1 on C_i, C_i+1 on the separator closest to its left, or on C_i where
  there is none).
- ``coordination-ps``: Prague style, the last conjunction (``cc``) heads the
  coordination, with the conjuncts and separators as its dependents; it
  takes C1's head and label, C1 takes ``conj``. A coordination without a
  ``cc`` between its conjuncts is left as it is.
- ``coordination-cs``: Collins style, each conjunct on the previous one,
  separators where they are.
- the ``+`` variants (τ_c+, section 3.2.1): the dependents of the whole
  coordination D (C1's dependents outside the span C1..Cn, punctuation
  aside) are set apart with the label ``r+``; in MS and CS those right of
  Cn move to Cn (the conjunct closest to their left, arc transformation 4),
  in PS all of them move to the head conjunction. The plain versions leave
  them on C1, as UD has them. C1's dependents among the later conjuncts
  (right of C2, left of Cn) move to the conjunct closest to their left in
  every MS and CS variant, marked ``r+``: the chain would cross them.
- ``verb-group-ms``: Mel'čuk style for verb groups (section 3.3, τ_v):
  each auxiliary (a verb's from the farthest to the nearest) takes the main verb's head and label,
  the main verb hangs on it with the auxiliary's label, and the main verb's
  dependents left of the leftmost of the two move to it, those right of the
  rightmost to it (lines 3-4), so that no arc becomes non-projective.
  ``verb-group-ms+cop`` treats ``cop`` as an auxiliary too.

Where a structure is ambiguous after the transform, a label says what the
inverse needs: a coordination nested in a conjunct has its second conjunct
labelled ``conj`` + ``NEST_MARK`` in MS and CS (the chain of the nested
coordination has the shape of the outer one's); in PS, C1 keeps the head
conjunction's label when it was not plain ``cc``. These labels, like
``r+``, live only between the transform and its inverse.

Order (section 3.4): the component applies the transforms in the order
given, then the system's pseudo-projective encoding (arc-eager, top-down),
which must see the final trees to make them projective; the inverse runs in
the reverse order: deprojectivize, then each inverse from the last
transform to the first.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

from spacy_planar.trees.algorithms import Tree, tree_error

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


def _children(heads: Sequence[int]) -> List[List[int]]:
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
    kids = _children(heads)
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
    kids = _children(heads)
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
    kids = _children(heads)
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
        for d in _children(heads)[top]:  # its own cc / punct, which the inverse would take for separators
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
    kids = _children(heads)
    tops = [w for w in range(1, len(heads) + 1) if any(d < w and is_conj(labels[d - 1]) for d in kids[w])]
    for top in sorted(tops, key=lambda w: -_depth(heads, w)):
        kids = _children(h)
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


# --- verb groups --------------------------------------------------------------------

def auxiliaries(heads: Sequence[int], labels: Sequence[str], cop: bool = False) -> List[int]:
    """The auxiliaries A of section 3.3: words labelled ``aux`` (``cop``
    too, as an option) with a head, left to right."""
    kinds = ("aux", "cop") if cop else ("aux",)
    return [a for a in range(1, len(heads) + 1) if base(labels[a - 1]) in kinds and heads[a - 1] > 0]


def _verb_order(pairs: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The order τ_v takes the (auxiliary, main verb) pairs in: verb by verb,
    each verb's auxiliaries from the farthest to the nearest (left to
    right, as in the thesis, where they precede the verb; where several
    follow it, left to right would make the chain cross itself)."""
    return sorted(pairs, key=lambda p: (p[1], -abs(p[0] - p[1]), p[0]))


def verb_groups_to_ms(heads: Sequence[int], labels: Sequence[str], cop: bool = False) -> Tree:
    """UD -> MS for verb groups (τ_v, section 3.3, lines 1-4), the
    auxiliaries in ``_verb_order``; each takes the main verb's label
    and the main verb the auxiliary's (the inverse reads them back)."""
    h, l = list(heads), list(labels)
    for a, m in _verb_order([(a, heads[a - 1]) for a in auxiliaries(heads, labels, cop)]):
        for d in range(1, len(h) + 1):  # the auxiliary's own dependents outside the span: marked, the
            if h[d - 1] == a and not min(a, m) < d < max(a, m):  # inverse would give them to m
                l[d - 1] += OWN_MARK
        h[a - 1], l[a - 1] = h[m - 1], l[m - 1]  # line 1
        h[m - 1], l[m - 1] = a, labels[a - 1]  # line 2
        left, right = min(a, m), max(a, m)
        for d in range(1, len(h) + 1):
            if h[d - 1] == m and d != a:
                if d < left:  # line 3
                    h[d - 1] = left
                elif d > right:  # line 4
                    h[d - 1] = right
    return h, l


def ms_to_verb_groups(heads: Sequence[int], labels: Sequence[str], cop: bool = False) -> Tree:
    """The inverse of ``verb_groups_to_ms``: each chain top -> ... -> m of
    auxiliary-labelled words ends in its main verb m (the one with no
    auxiliary-labelled dependent); the auxiliaries are undone in the
    reverse of ``_verb_order``, each giving m back its head and label and the dependents it
    took from m (those outside the two verbs' span)."""
    kinds = ("aux", "cop") if cop else ("aux",)
    h, l = list(heads), list(labels)
    kids = _children(heads)
    is_aux = [base(lab) in kinds for lab in labels]
    pairs = []  # (auxiliary, main verb)
    for m in range(1, len(heads) + 1):
        if not is_aux[m - 1] or heads[m - 1] == 0 or any(is_aux[d - 1] for d in kids[m]):
            continue
        x, seen = heads[m - 1], {m}
        while x and x not in seen:
            seen.add(x)
            pairs.append((x, m))
            if not is_aux[x - 1]:
                break
            x = heads[x - 1]
    for a, m in reversed(_verb_order(pairs)):
        if h[m - 1] != a:  # not as the transform leaves a chain
            continue
        left, right = min(a, m), max(a, m)
        for d in range(1, len(h) + 1):
            if h[d - 1] == a and d != m and (d < left or d > right):
                if l[d - 1].endswith(OWN_MARK):  # the auxiliary's own
                    l[d - 1] = l[d - 1][:-len(OWN_MARK)]
                else:
                    h[d - 1] = m
        h[m - 1], l[m - 1], h[a - 1], l[a - 1] = h[a - 1], l[a - 1], m, l[m - 1]
    return h, l


# --- the transforms by name ---------------------------------------------------------

Transform = Callable[[Sequence[int], Sequence[str]], Tree]


def _coordination(style: str, shared: bool) -> Tuple[Transform, Transform]:
    if style == "ps":
        return (lambda h, l: coordination_to_ps(h, l, shared), lambda h, l: ps_to_coordination(h, l, shared))
    return (lambda h, l: coordination_to_chain(h, l, style, shared),
            lambda h, l: chain_to_coordination(h, l, style, shared))


TRANSFORMS: Dict[str, Tuple[Transform, Transform]] = {
    f"coordination-{style}{'+' if shared else ''}": _coordination(style, shared)
    for style in ("ms", "ps", "cs") for shared in (False, True)
}
TRANSFORMS["verb-group-ms"] = (verb_groups_to_ms, ms_to_verb_groups)
TRANSFORMS["verb-group-ms+cop"] = (lambda h, l: verb_groups_to_ms(h, l, cop=True),
                                   lambda h, l: ms_to_verb_groups(h, l, cop=True))


def check_transforms(names: Sequence[str]) -> List[str]:
    from spacy_planar.errors import Errors, UserError

    for name in names:
        if name not in TRANSFORMS:
            raise UserError(Errors.E051.format(name=name, options=", ".join(TRANSFORMS)))
    return list(names)


def apply_transforms(names: Sequence[str], heads: Sequence[int], labels: Sequence[str]) -> Tree:
    """The transforms in the order given."""
    h, l = list(heads), list(labels)
    for name in names:
        h, l = TRANSFORMS[name][0](h, l)
    return h, l


def invert_transforms(names: Sequence[str], heads: Sequence[int], labels: Sequence[str]) -> Tree:
    """Their inverses in the reverse order; no transformed label is left
    (a mark the inverse could not place is dropped)."""
    h, l = list(heads), list(labels)
    for name in reversed(names):
        h, l = TRANSFORMS[name][1](h, l)
    return h, [clean_label(x) for x in l]


def restored(names: Sequence[str], heads: Sequence[int], labels: Sequence[str]) -> Tuple[Tree, bool]:
    """A parser's output brought back through the inverse transforms, and
    whether they left a tree: where they would not (the output may hold
    what no transform makes), the output as parsed, its labels cleaned
    (the parser counts and reports each: ``parsing.output_trees``)."""
    h, l = invert_transforms(names, heads, labels)
    if tree_error(h) is None:
        return (h, l), True
    return (list(heads), [clean_label(x) for x in labels]), False


def restore(names: Sequence[str], heads: Sequence[int], labels: Sequence[str]) -> Tree:
    """``restored``'s tree alone (an evaluation that compares trees)."""
    return restored(names, heads, labels)[0]


def clean_label(label: str) -> str:
    """A label without the transforms' marks."""
    label = label.split(PS_MARK, 1)[0]
    return _unmark(label).rstrip(NEST_MARK).rstrip(OWN_MARK)


def found(name: str, heads: Sequence[int], labels: Sequence[str]) -> int:
    """How many coordinations or verb groups a transform finds in a tree
    (coordination-ps: those with a ``cc``, the ones it transforms)."""
    if name.startswith("verb-group"):
        return len({heads[a - 1] for a in auxiliaries(heads, labels, cop=name.endswith("+cop"))})
    found_ = find_coordinations(heads, labels)
    if name.startswith("coordination-ps"):
        return sum(any(base(labels[s - 1]) == "cc" for gap in co.separators for s in gap) for co in found_)
    return len(found_)
