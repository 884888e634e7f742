"""The planar systems' oracles (``systems/planar.py``, ``systems/two_planar.py``).

Static oracle of the planar system (Gómez-Rodríguez & Nivre 2010, section
4.3): LEFT-ARC if wj -> wi ∈ E \\ A; RIGHT-ARC if wi -> wj ∈ E \\ A; REDUCE if
some wx, x < i, has a link with wj in E \\ A; SHIFT otherwise. It reproduces
every planar tree (a tree that is not planar is trained on the links
``Planar.prepare_tree`` keeps; ``not_covered`` counts such trees). Reducing
words as soon as their links are all built instead was tried and left out
(docs/decisions.md).

Dynamic oracle: ``link_costs``, approximate, shared with 2-planar.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from spacy_planar.parser.oracles import _link_costs
from spacy_planar.parser.oracles.base import PREFER, Oracle
from spacy_planar.parser.systems.state import INT, LEFT, N_MOVES, RIGHT, States


class PlanarOracle(Oracle):
    # (row, d1, d2): the gold links into d1 and d2 cross (``link_costs``); none in a planar oracle
    pairs = np.zeros((0, 3), dtype=INT)

    def static(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        return self.link_or_reduce(st, arcs_on_headless=True, reduce_needs_head=False)

    def costs(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """An approximate dynamic oracle (``link_costs``)."""
        return link_costs(self, st)


def link_costs(oracle: PlanarOracle, st: States, look_across: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """Move costs of the planar and 2-planar systems, for training with
    exploration: the gold links a move puts out of reach (Goldberg & Nivre
    2012's definition; for these non-arc-decomposable systems in the manner
    of Gómez-Rodríguez & Fernández-González's non-projective oracles).

    A gold link u - v (u < v) not yet built is *pending* while its dependent
    has no head, its ends are in different components (no undirected path),
    v is still in β and u is on a stack or in β. The loss of a configuration
    is approximated by the gold links that are not pending (nor built), plus
    one for each cycle a new arc closes with pending links (one of them will
    be lost), plus one for each pair of crossing pending links whose left ends
    sit on the same single stack (they cannot share a plane). Then:

        SHIFT      pending links between b0 and stack words
        REDUCE     pending links of s0 to β, if s0 is on no other stack
        LEFT/RIGHT the dependent's own link (gold head or root) if it is not
                   this arc; plus one if the new arc closes a cycle with
                   pending links or kills a pending link between the two
                   components
        SWITCH     the cheapest next move on the other stack (SWITCH puts
                   nothing out of reach, but cannot be followed by SWITCH)

    each plus the change in crossing conflicts. Among moves of equal loss the
    static oracle's choices are preferred, so that training has one way of
    doing things to learn rather than many: SWITCH and REDUCE cost an extra
    ``PREFER`` (1/2, less than one link) unless a pending link to b0 starts
    on the inactive stack and no arc can be built here (SWITCH), or starts
    below s0 on the active stack (REDUCE). ``tests/test_systems.py``
    compares these costs with exhaustive search on small trees.

    One C loop over the rows computes them (``_link_costs.link_costs``, with
    its numpy twin in ``tests/reference.py``)."""
    B = st.B
    system = oracle.system
    allowed = np.isin(np.arange(6), system.moves)
    valid = system.valid_moves(st) & allowed
    valid_across = valid
    look_across = look_across and st.stack.shape[1] == 2
    if look_across:  # the moves valid on the other stack after SWITCH
        valid_across = system.valid_moves(st.across()) & allowed
    pairs = oracle.pairs
    pair_start = np.searchsorted(pairs[:, 0], np.arange(B + 1)).astype(INT)
    cost = np.empty((B, N_MOVES))
    _link_costs.link_costs(st.stack, st.sp, st.active, st.buf, st.bp, st.info, st.comp, st.n, oracle.heads,
                        np.ascontiguousarray(pairs, dtype=INT), pair_start, valid.view(np.uint8),
                        valid_across.view(np.uint8), look_across, PREFER, cost)
    s0, b0 = st.s(0), st.b(0)
    both = (s0 >= 0) & (b0 >= 0)
    s0c, b0c = np.maximum(s0, 0), np.maximum(b0, 0)
    g = oracle.heads
    label = np.full((B, N_MOVES), -1, dtype=INT)
    label[:, LEFT] = np.where(both & (g[st.rows, s0c] == b0), oracle.labels[st.rows, s0c], -1)
    label[:, RIGHT] = np.where(both & (g[st.rows, b0c] == s0), oracle.labels[st.rows, b0c], -1)
    return cost, label
