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

from typing import Callable, Dict, List, Sequence, Tuple

from spacy_planar.trees.algorithms import Tree, tree_error
from spacy_planar.trees.coordination import (
    base,
    chain_to_coordination,
    clean_label,
    coordination_to_chain,
    coordination_to_ps,
    find_coordinations,
    ps_to_coordination,
)
from spacy_planar.trees.verb_groups import auxiliaries, ms_to_verb_groups, verb_groups_to_ms


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


def found(name: str, heads: Sequence[int], labels: Sequence[str]) -> int:
    """How many coordinations or verb groups a transform finds in a tree
    (coordination-ps: those with a ``cc``, the ones it transforms)."""
    if name.startswith("verb-group"):
        return len({heads[a - 1] for a in auxiliaries(heads, labels, cop=name.endswith("+cop"))})
    found_ = find_coordinations(heads, labels)
    if name.startswith("coordination-ps"):
        return sum(any(base(labels[s - 1]) == "cc" for gap in co.separators for s in gap) for co in found_)
    return len(found_)
