"""Arc-eager (Nivre 2003), trained on pseudo-projective trees (Nivre & Nilsson 2005).

Configuration (σ, β, A): stack σ, buffer β, arcs A; no artificial root on
the stack: the words left without a head at the end are roots.

    SHIFT        (σ, j|β, A)   ⇒ (σ|j, β, A)
    REDUCE       (σ|i, β, A)   ⇒ (σ, β, A)                 only if i has a head
    LEFT-ARC_l   (σ|i, j|β, A) ⇒ (σ, j|β, A ∪ {(j, l, i)})   only if i has no head
    RIGHT-ARC_l  (σ|i, j|β, A) ⇒ (σ|i|j, β, A ∪ {(i, l, j)})

Terminal: β = []. At most 2n transitions (each word is shifted or
right-attached once, and reduced or left-attached at most once). Every
reachable graph is a projective forest.

Static oracle, on the tree projectivized by ``projectivize`` (labels decorated
by the chosen encoding): LEFT-ARC if b0 -> s0 is gold; RIGHT-ARC if s0 -> b0;
REDUCE if s0 has its head and b0 has a gold link to a word left of s0 that
is not built; SHIFT otherwise. Parser output is decoded by ``deprojectivize``.

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

from typing import List, Sequence, Tuple

import numpy as np

from ..pseudoproj import check_encoding, deprojectivize, is_decorated, projectivize
from .base import TransitionSystem, Tree
from .state import INT, LEFT, REDUCE, RIGHT, SHIFT, Gold, States


class ArcEager(TransitionSystem):
    name = "arc-eager"
    moves = (SHIFT, REDUCE, LEFT, RIGHT)

    def __init__(self, labels: Sequence[str], root_label: str = "root", encoding: str = "head+path"):
        self.encoding = check_encoding(encoding)
        super().__init__(labels, root_label)
        self.decorated = frozenset(label for label in self.labels if is_decorated(label))

    @staticmethod
    def max_steps(n: int) -> int:
        return 2 * n

    def valid_moves(self, st: States) -> np.ndarray:
        s0, b0 = st.s(0), st.b(0)
        has_s, has_b = s0 >= 0, b0 >= 0
        s0_headed = st.at(st.heads, s0) >= 0
        valid = np.zeros((st.B, 6), dtype=bool)
        valid[:, SHIFT] = has_b
        valid[:, REDUCE] = has_s & s0_headed
        valid[:, LEFT] = has_s & has_b & ~s0_headed
        valid[:, RIGHT] = has_s & has_b
        return valid

    def transitions(self):
        return {SHIFT: self.shift, REDUCE: self.reduce, LEFT: self.left_arc, RIGHT: self.right_arc}

    @staticmethod
    def shift(st: States, rows, labels, stack) -> None:
        st.push(rows, stack, st.pop_buffer(rows))

    @staticmethod
    def reduce(st: States, rows, labels, stack) -> None:
        st.pop(rows, stack)

    @staticmethod
    def left_arc(st: States, rows, labels, stack) -> None:
        dep = st.pop(rows, stack)
        st.add_arcs(rows, st.buf[rows, st.bp[rows] - 1], dep, labels)

    @staticmethod
    def right_arc(st: States, rows, labels, stack) -> None:
        dep = st.pop_buffer(rows)
        st.add_arcs(rows, st.stack[rows, stack, st.sp[rows, stack] - 1], dep, labels)
        st.push(rows, stack, dep)

    def oracle(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        s0, b0 = st.s(0), st.b(0)
        both = (s0 >= 0) & (b0 >= 0)
        left = both & (st.at(gold.heads, s0) == b0)
        right = both & (st.at(gold.heads, b0) == s0)
        pending, _ = gold.links_to(st, b0)
        x = np.arange(st.T)[None, :]
        reduce = both & (st.at(st.heads, s0) >= 0) & (pending & (x < s0[:, None])).any(axis=1)
        moves = np.select([left, right, reduce], [LEFT, RIGHT, REDUCE], SHIFT)
        labels = np.select([left, right], [st.at(gold.labels, s0), st.at(gold.labels, b0)], -1)
        return moves, labels

    def costs(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """The dynamic oracle: ([B, 6] cost of each move, inf where invalid;
        [B, 6] the gold label of the arc a LEFT / RIGHT-ARC would build, -1
        where that arc is not gold and any label costs the same)."""
        s0, b0 = st.s(0), st.b(0)
        x = np.arange(st.T)[None, :]
        in_sigma = st.in_stack(st.active)
        in_beta = (x >= b0[:, None]) & (b0[:, None] > 0) & (x <= st.n[:, None])
        headless = st.heads < 0
        g = gold.heads
        g_s0, g_b0 = st.at(g, s0), st.at(g, b0)

        def member(mask: np.ndarray, words: np.ndarray) -> np.ndarray:
            return (words > 0) & mask[st.rows, np.maximum(words, 0)]

        b0_heads_in_sigma = (in_sigma & headless & (g == b0[:, None])).sum(axis=1)
        s0_heads_in_beta = (in_beta & (g == s0[:, None]) & (s0[:, None] > 0)).sum(axis=1)
        cost = np.full((st.B, 6), np.inf)
        valid = self.valid_moves(st)
        cost[:, SHIFT] = member(in_sigma, g_b0) + b0_heads_in_sigma
        cost[:, REDUCE] = s0_heads_in_beta
        left_gold = g_s0 == b0
        cost[:, LEFT] = (~left_gold & ((g_s0 == 0) | member(in_beta, g_s0))) + s0_heads_in_beta
        right_gold = g_b0 == s0
        cost[:, RIGHT] = (~right_gold & ((g_b0 == 0) | member(in_sigma | in_beta, g_b0))) + b0_heads_in_sigma
        cost[~valid] = np.inf
        label = np.full((st.B, 6), -1, dtype=INT)
        label[:, LEFT] = np.where(left_gold, st.at(gold.labels, s0), -1)
        label[:, RIGHT] = np.where(right_gold, st.at(gold.labels, b0), -1)
        return cost, label

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        p = projectivize(heads, labels, self.encoding)
        return p.heads, p.labels

    def decode_tree(self, heads: List[int], labels: List[str]) -> Tree:
        if self.decorated.isdisjoint(labels):
            return heads, labels
        return deprojectivize(heads, labels, self.encoding)

    def covers(self, heads: Sequence[int], labels: Sequence[str]) -> bool:
        p = projectivize(heads, labels, self.encoding)
        return deprojectivize(p.heads, p.labels, self.encoding) == (list(heads), list(labels))
