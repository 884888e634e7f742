"""The 2-planar transition system (Gómez-Rodríguez & Nivre 2010, section 5, Figure 4).

Configuration (Σ0, Σ1, β, A): the active stack Σ0 and the inactive Σ1, one
per plane; arcs are built between the top of the active stack and the front of
the buffer, so the links of each stack form a planar graph and A is 2-planar.

    SHIFT        (Σ0, Σ1, wi|β, A)       ⇒ (Σ0|wi, Σ1|wi, β, A)     pushes to both stacks
    REDUCE       (Σ0|wi, Σ1, β, A)       ⇒ (Σ0, Σ1, β, A)
    LEFT-ARC_l   (Σ0|wi, Σ1, wj|β, A)    ⇒ (Σ0|wi, Σ1, wj|β, A ∪ {(wj, l, wi)})
    RIGHT-ARC_l  (Σ0|wi, Σ1, wj|β, A)    ⇒ (Σ0|wi, Σ1, wj|β, A ∪ {(wi, l, wj)})
                 arcs only if single-head and no undirected path wi ~ wj (as planar)
    SWITCH       (Σ0, Σ1, β, A)          ⇒ (Σ1, Σ0, β, A)          never twice in a row

Terminal: β = []. Bound: at most 4n - 1 other transitions (n SHIFTs, 2n
REDUCEs, n - 1 arcs) and at most one SWITCH before each of them and at the end,
so at most 8n transitions. The tree constraint of ``Planar`` applies to the
active stack: an unshifted word is linked on the stack it came from, or
after SWITCH on the other one if it is on top there (where it is then reduced,
so that the words below it can be linked to it without crossing); with β
empty, SWITCH only goes to a non-empty stack. Two rules make a single root a rule of the moves
here: while β is not empty no word leaves both stacks without a head (the root can stay on the
other stack while links cover it on this one), and an unshifted word whose active stack holds no
word outside its own tree may SWITCH to the other stack where that one does. Every headless word
is then on a stack at the end, within reach. At most n more SHIFTs: 10n.

Oracles: ``oracles/two_planar.py`` (section 5.1, with the planes assigned
incrementally as in section 5.2).
"""
from __future__ import annotations

from spacy_planar.parser.systems.planar import Planar
from spacy_planar.parser.systems.state import FEATURES_2STACK, LEFT, REDUCE, RIGHT, SHIFT, SWITCH
from spacy_planar.trees.algorithms import min_planes


class TwoPlanar(Planar):
    name = "two_planar"
    moves = (SHIFT, REDUCE, LEFT, RIGHT, SWITCH)
    n_stacks = 2
    features = FEATURES_2STACK

    @staticmethod
    def max_steps(n: int) -> int:
        return 10 * n  # 8n without the tree constraint

    def prepare_tree(self, heads, labels):
        return list(heads), list(labels)

    def covers(self, heads, labels) -> bool:
        return min_planes(heads) <= 2
