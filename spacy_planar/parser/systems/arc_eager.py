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

Single root (``States.finish``, the component's ``single_root``): the tree
constraint of Nivre & Fernández-González (2014), as spaCy's parser has it.
Words leave the stack only with a head, so the headless words are on the
stack; when β is empty and two or more are left,

    UNSHIFT      (σ|i, [], A) ⇒ (σ, [i], A)     i headless (automatic)

puts s0 back into β, where the model attaches it with the usual moves
(RIGHT-ARC from the word below, which pushes it with its head; LEFT-ARC
taking that word as its dependent; REDUCE passing over words that have a
head). An unshifted b0 leaves β with a head (RIGHT-ARC), or headless by
SHIFT only onto an empty stack (it is then the one root). Terminal: β = []
and one headless word left. No move can build a second root, and there is
always a valid move: RIGHT-ARC joins s0 and an unshifted b0 without a cycle
(no word below b0 on the stack descends from it). Each word is unshifted at
most once: at most 4n transitions. The static oracle never unshifts (a gold
tree has one root), so it is unchanged.

Its oracles (static, and the exact dynamic oracle of Goldberg & Nivre 2012)
are in ``oracles/arc_eager.py``. Parser output is decoded by ``deprojectivize``.
"""
from __future__ import annotations

import numpy as np

from spacy_planar.parser.systems.base import PseudoProjective
from spacy_planar.parser.systems.state import INT, LEFT, N_MOVES, REDUCE, RIGHT, SHIFT, States


class ArcEager(PseudoProjective):
    name = "arc_eager"
    moves = (SHIFT, REDUCE, LEFT, RIGHT)

    @staticmethod
    def max_steps(n: int) -> int:
        return 4 * n  # 2n without the tree constraint

    def valid_moves(self, st: States) -> np.ndarray:
        s0, b0 = st.s(0), st.b(0)
        has_s, has_b = s0 >= 0, b0 >= 0
        s0_headed = st.at(st.heads, s0) >= 0
        valid = np.zeros((st.B, N_MOVES), dtype=bool)
        valid[:, SHIFT] = has_b
        valid[:, REDUCE] = has_s & s0_headed
        valid[:, LEFT] = has_s & has_b & ~s0_headed
        valid[:, RIGHT] = has_s & has_b
        if st.finish:  # an unshifted b0 is shifted headless only onto an empty stack
            valid[:, SHIFT] &= ~(has_s & self.unshifted_front(st))
        return valid

    @staticmethod
    def unshifted_front(st: States) -> np.ndarray:
        """[B] whether b0 is a word put back by UNSHIFT."""
        b0 = st.b(0)
        return (b0 >= 0) & st.unshifted[st.rows, np.maximum(b0, 0)]

    def terminal(self, st: States) -> np.ndarray:
        done = st.bp == 0
        if st.finish:  # and one headless word left
            done &= st.n - st.n_arcs <= 1
        return done

    def apply_moves(self, st: States, idx: np.ndarray, moves: np.ndarray, labels: np.ndarray) -> None:
        """The moves, then (``finish``) the automatic UNSHIFT of the rows
        whose β is empty with two headless words or more left."""
        super().apply_moves(st, idx, moves, labels)
        if st.finish:
            self.unshift(st, idx)

    @staticmethod
    def unshift(st: States, idx: np.ndarray) -> None:
        """UNSHIFT on the rows ``idx`` where β is empty, s0 is headless and
        another headless word is left."""
        idx = idx[(st.bp[idx] == 0) & (st.n[idx] - st.n_arcs[idx] >= 2)]
        if not len(idx):
            return
        top = st.top(idx, np.zeros(len(idx), dtype=INT))
        idx = idx[(top >= 0) & (st.heads[idx, np.maximum(top, 0)] < 0)]
        if len(idx):
            word = st.pop(idx, np.zeros(len(idx), dtype=INT))
            st.push_buffer(idx, word)
            st.unshifted[idx, word] = True

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
