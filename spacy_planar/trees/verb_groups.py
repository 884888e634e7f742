"""Verb groups in Mel'čuk style (Nilsson 2007, section 3.3, τ_v) and back, on plain head / label
lists: each auxiliary takes the main verb's head and label, the main verb hangs on it (``transforms.py``
names them ``verb-group-ms`` and ``verb-group-ms+cop``)."""
from __future__ import annotations

from typing import List, Sequence, Tuple

from spacy_planar.trees.algorithms import Tree
from spacy_planar.trees.coordination import OWN_MARK, base, children_of

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
    kids = children_of(heads)
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
