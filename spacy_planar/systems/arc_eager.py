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

Its oracles (static, and the exact dynamic oracle of Goldberg & Nivre 2012)
are in ``oracles/arc_eager.py``. Parser output is decoded by ``deprojectivize``.
"""
from __future__ import annotations

import numpy as np

from .base import PseudoProjective
from .state import LEFT, REDUCE, RIGHT, SHIFT, States


class ArcEager(PseudoProjective):
    name = "arc-eager"
    moves = (SHIFT, REDUCE, LEFT, RIGHT)

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
