"""Arc-eager's oracles (``systems/arc_eager.py``).

Static oracle, on the tree projectivized by ``projectivize`` (Nivre &
Nilsson 2005, section 3): LEFT-ARC if b0 -> s0 is gold; RIGHT-ARC if
s0 -> b0; REDUCE if s0 has its head and b0 has a gold link to a word left of
s0 that is not built; SHIFT otherwise.

Dynamic oracle (Goldberg & Nivre 2012, "A dynamic oracle for arc-eager
dependency parsing", sections 3-4): arc-eager is arc-decomposable on
projective trees, so the cost of a transition in any configuration, the
number of gold arcs it makes unreachable, counts arcs between s0 / b0 and
the stack and buffer (g(w): gold head, 0 the root; root arcs are reachable
while the word has no head, since headless words end as roots):

    SHIFT        [g(b0) ∈ σ] + |{k ∈ σ headless : g(k) = b0}|
    REDUCE       |{k ∈ β : g(k) = s0}|
    LEFT-ARC_l   [g(s0) ∈ β - {b0}, or 0] + |{k ∈ β : g(k) = s0}|  (+1 for a wrong l)
    RIGHT-ARC_l  [g(b0) ∈ σ - {s0}, β, or 0] + |{k ∈ σ headless : g(k) = b0}|  (+1 for a wrong l)

Every zero-cost transition keeps the best tree still reachable, so training
may follow the parser's own predictions (exploration) and learn the best
move from wherever it is.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from spacy_planar.parser.oracles.base import Oracle
from spacy_planar.parser.systems.state import INT, LEFT, N_MOVES, REDUCE, RIGHT, SHIFT, States


class ArcEagerOracle(Oracle):

    def static(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        return self.link_or_reduce(st, arcs_on_headless=False, reduce_needs_head=True)

    def costs(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """The exact dynamic oracle of the module docstring (-1 labels where
        the arc is not gold and any label costs the same)."""
        s0, b0 = st.s(0), st.b(0)
        x = np.arange(st.T)[None, :]
        in_sigma = st.in_stack(st.active)
        in_beta = (x >= b0[:, None]) & (b0[:, None] > 0) & (x <= st.n[:, None])
        if st.finish:  # an unshifted b0 is alone in β (the tree constraint)
            in_beta &= ~self.system.unshifted_front(st)[:, None] | (x == b0[:, None])
        headless = st.heads < 0
        g = self.heads
        g_s0, g_b0 = st.at(g, s0), st.at(g, b0)

        def member(mask: np.ndarray, words: np.ndarray) -> np.ndarray:
            return (words > 0) & mask[st.rows, np.maximum(words, 0)]

        b0_heads_in_sigma = (in_sigma & headless & (g == b0[:, None])).sum(axis=1)
        s0_heads_in_beta = (in_beta & (g == s0[:, None]) & (s0[:, None] > 0)).sum(axis=1)
        cost = np.full((st.B, N_MOVES), np.inf)
        valid = self.system.valid_moves(st)
        cost[:, SHIFT] = member(in_sigma, g_b0) + b0_heads_in_sigma
        cost[:, REDUCE] = s0_heads_in_beta
        left_gold = g_s0 == b0
        cost[:, LEFT] = (~left_gold & ((g_s0 == 0) | member(in_beta, g_s0))) + s0_heads_in_beta
        right_gold = g_b0 == s0
        cost[:, RIGHT] = (~right_gold & ((g_b0 == 0) | member(in_sigma | in_beta, g_b0))) + b0_heads_in_sigma
        cost[~valid] = np.inf
        label = np.full((st.B, N_MOVES), -1, dtype=INT)
        label[:, LEFT] = np.where(left_gold, st.at(self.labels, s0), -1)
        label[:, RIGHT] = np.where(right_gold, st.at(self.labels, b0), -1)
        return cost, label
