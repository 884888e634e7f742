"""The planar transition system (Gómez-Rodríguez & Nivre 2010, section 4, Figure 3).

Configuration (σ, β, A), no artificial root: the words left without a head at
the end are roots (the system builds planar forests; links from the root are
not counted by planarity, footnote 3). Arc transitions are fine-grained: they
only add the link, and words without a head may be reduced.

    SHIFT        (σ, wi|β, A)    ⇒ (σ|wi, β, A)
    REDUCE       (σ|wi, β, A)    ⇒ (σ, β, A)
    LEFT-ARC_l   (σ|wi, wj|β, A) ⇒ (σ|wi, wj|β, A ∪ {(wj, l, wi)})
                 only if wi has no head (single-head) and no undirected path wi ~ wj (acyclicity)
    RIGHT-ARC_l  (σ|wi, wj|β, A) ⇒ (σ|wi, wj|β, A ∪ {(wi, l, wj)})
                 only if wj has no head and no undirected path wi ~ wj

Terminal: β = []. At most 3n - 1 transitions (n SHIFTs, n REDUCEs, n - 1 arcs).
The acyclicity check is "wi and wj in different components" (``States.comp``).

Oracle (section 4.3): LEFT-ARC if wj -> wi ∈ E \\ A; RIGHT-ARC if wi -> wj ∈ E \\ A;
REDUCE if some wx, x < i, has a link with wj in E \\ A; SHIFT otherwise. It
reproduces every planar tree. (Reducing words as soon as their links are all
built, instead, gave 0.7 less LAS on Gothic dev with 2-planar: it was tried
and left out.) A tree that is not planar is trained on the
links that fit: links are kept greedily in the order the parser would build
them (by right end, then nearest left end first) unless they cross a kept one;
the words whose links are dropped become roots (``not_covered`` counts them).
"""
from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from ..trees import is_planar
from .base import TransitionSystem, Tree
from .state import LEFT, REDUCE, RIGHT, SHIFT, SWITCH, Gold, States


def keep_planar(heads: Sequence[int]) -> list:
    """Dependents whose links are kept by the greedy planar choice."""
    links = sorted(((max(h, d), -min(h, d), d) for d, h in enumerate(heads, 1) if h > 0))
    kept, spans = [], []
    for right, neg_left, d in links:
        left = -neg_left
        if not any(a < left < b < right or left < a < right < b for a, b in spans):
            kept.append(d)
            spans.append((left, right))
    return kept


class Planar(TransitionSystem):
    name = "planar"
    moves = (SHIFT, REDUCE, LEFT, RIGHT)

    @staticmethod
    def max_steps(n: int) -> int:
        return 3 * n

    def valid_moves(self, st: States) -> np.ndarray:
        s0, b0 = st.s(0), st.b(0)
        has_s, has_b = s0 >= 0, b0 >= 0
        both = has_s & has_b
        apart = st.at(st.comp, s0) != st.at(st.comp, b0)
        valid = np.zeros((st.B, 6), dtype=bool)
        valid[:, SHIFT] = has_b
        valid[:, REDUCE] = has_s
        valid[:, LEFT] = both & apart & (st.at(st.heads, s0) < 0)
        valid[:, RIGHT] = both & apart & (st.at(st.heads, b0) < 0)
        valid[:, SWITCH] = st.last != SWITCH  # used by 2-planar only
        return valid

    def transitions(self):
        return {SHIFT: self.shift, REDUCE: self.reduce, LEFT: self.left_arc, RIGHT: self.right_arc,
                SWITCH: self.switch}

    @staticmethod
    def shift(st: States, rows, labels, stack) -> None:
        word = st.pop_buffer(rows)
        for s in range(st.stack.shape[1]):  # onto every stack
            st.push(rows, s, word)

    @staticmethod
    def reduce(st: States, rows, labels, stack) -> None:
        st.pop(rows, stack)

    @staticmethod
    def left_arc(st: States, rows, labels, stack) -> None:
        st.add_arcs(rows, st.buf[rows, st.bp[rows] - 1], st.stack[rows, stack, st.sp[rows, stack] - 1], labels)

    @staticmethod
    def right_arc(st: States, rows, labels, stack) -> None:
        st.add_arcs(rows, st.stack[rows, stack, st.sp[rows, stack] - 1], st.buf[rows, st.bp[rows] - 1], labels)

    @staticmethod
    def switch(st: States, rows, labels, stack) -> None:
        st.switch(rows)

    def oracle(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        s0, b0 = st.s(0), st.b(0)
        both = (s0 >= 0) & (b0 >= 0)
        left = both & (st.at(gold.heads, s0) == b0) & (st.at(st.heads, s0) < 0)
        right = both & (st.at(gold.heads, b0) == s0) & (st.at(st.heads, b0) < 0)
        pending, _ = gold.links_to(st, b0)
        x = np.arange(st.T)[None, :]
        reduce = both & (pending & (x < s0[:, None])).any(axis=1)
        moves = np.select([left, right, reduce], [LEFT, RIGHT, REDUCE], SHIFT)
        labels = np.select([left, right], [st.at(gold.labels, s0), st.at(gold.labels, b0)], -1)
        return moves, labels

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        kept = set(keep_planar(heads))
        if len(kept) == sum(1 for h in heads if h > 0):
            return list(heads), list(labels)
        return ([h if (h == 0 or d in kept) else 0 for d, h in enumerate(heads, 1)],
                [l if (h == 0 or d in kept) else self.root_label for d, (h, l) in enumerate(zip(heads, labels), 1)])

    def covers(self, heads, labels) -> bool:
        return is_planar(heads)
