"""The swap transition system (Nivre 2009) with the eager and the lazy oracle
(Nivre, Kuhlmann & Hall 2009).

Configuration (Σ, B, A), the artificial root 0 at the bottom of the stack;
arcs link the two top words of the stack, and SWAP moves the second word back
to the buffer, reordering the input online.

    LEFT-ARC_l   ([σ|i, j], B, A)  ⇒ ([σ|j], B, A ∪ {(j, l, i)})    only if i ≠ 0
    RIGHT-ARC_l  ([σ|i, j], B, A)  ⇒ ([σ|i], B, A ∪ {(i, l, j)})
    SHIFT        (σ, [i|β], A)     ⇒ ([σ|i], β, A)
    SWAP         ([σ|i, j], β, A)  ⇒ ([σ|j], [i|β], A)               only if 0 < i < j

Terminal: Σ = [0], B = []. Any tree (non-projective too) is reachable.

Single root (``States.finish``, the component's ``single_root``; as
Parsito's ``single_root``): RIGHT-ARC from the artificial root is valid only
when nothing else can still attach, Σ = [0, j] and B = []; the arc from 0
always carries the root label. There is always a valid move (SHIFT while B
is not empty, then arcs between words while Σ holds three or more). Bound:
a pair of words is swapped at most once (i < j before, j before i after), so
at most n(n - 1)/2 SWAPs, each followed by one more SHIFT: at most
2n + n(n - 1) = n² + n transitions.

UD's rules when parsing (``ud_label_rules``; the UD validator's level 3): after
SWAPs either word of an arc may come first, so a label is kept off the arcs
UD forbids it: the root label off arcs between words (``root-is-not-0``), and
the relations whose head comes first (conj, fixed, flat, goeswith, appos, and
their subtypes) off arcs whose head follows its dependent
(``right-to-left-conj`` ...). Training is unchanged (the oracle's labels).

Oracles: ``oracles/swap.py`` (the eager and the lazy static oracle of Nivre,
Kuhlmann & Hall 2009, and an approximate dynamic oracle).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from spacy_planar.defaults import ROOT_LABEL
from spacy_planar.errors import Errors, UserError
from spacy_planar.parser.systems.base import TransitionSystem
from spacy_planar.parser.systems.state import LEFT, N_MOVES, RIGHT, SHIFT, SWAP, States

# Arcs join s1 and s0, so their children matter most (as for arc-standard,
# Chen & Manning 2014); b0 has no dependents in this system but after a SWAP.
FEATURES_SWAP = ("s0", "s1", "s2", "b0", "b1", "b2", "s0.l", "s0.r", "s0.l2", "s0.r2",
                 "s1.l", "s1.r", "s1.l2", "s1.r2")
LABEL_FEATURES_SWAP = ("s0", "s1", "s0.l", "s0.r", "s1.l", "s1.r")
SWAP_ORACLES = ("eager", "lazy")
# UD relations whose head precedes the dependent (the validator's right-to-left-* errors), subtypes too
HEAD_FIRST_RELATIONS = ("conj", "fixed", "flat", "goeswith", "appos")


def check_oracle(oracle: str) -> str:
    """``oracle`` if it names one of swap's oracles, else one line (E071)."""
    if oracle not in SWAP_ORACLES:
        raise UserError(Errors.E071.format(oracle=oracle))
    return oracle


class Swap(TransitionSystem):
    name = "swap"
    moves = (SHIFT, LEFT, RIGHT, SWAP)
    root_on_stack = True
    features = FEATURES_SWAP
    label_features = LABEL_FEATURES_SWAP

    def __init__(self, labels: Sequence[str], root_label: str = ROOT_LABEL, *, oracle: str, **built):
        self.oracle = check_oracle(oracle)  # which static oracle trains it (``oracles/swap.py``)
        self.lazy = oracle == "lazy"
        super().__init__(labels, root_label, **built)
        table = self.table
        head_first = np.array([label.split(":")[0] in HEAD_FIRST_RELATIONS for label in self.labels])
        labelled = table.label_of >= 0
        label = np.where(labelled, table.label_of, 0)
        arcs = (table.move_of == LEFT) | (table.move_of == RIGHT)
        self._root_arc = arcs & labelled & (label == self.root_id)  # actions that would label a word's arc root
        self._head_first_left = (table.move_of == LEFT) & labelled & head_first[label]
        self._head_first_right = (table.move_of == RIGHT) & labelled & head_first[label]

    def ud_label_rules(self, st: States) -> np.ndarray:
        """LEFT-ARC makes s0 the head of s1, RIGHT-ARC s1 the head of s0;
        between two words (s1 >= 1) neither takes the root label, and a
        head-first relation only where the head precedes in the sentence."""
        s0, s1 = st.s(0), st.s(1)
        words = (s1 >= 1)[:, None]
        ruled_out = words & (self._root_arc[None, :]
                             | ((s0 > s1)[:, None] & self._head_first_left[None, :])
                             | ((s1 > s0)[:, None] & self._head_first_right[None, :]))
        return ~ruled_out

    @staticmethod
    def max_steps(n: int) -> int:
        return n * n + n

    def terminal(self, st: States) -> np.ndarray:
        return (st.bp == 0) & (st.sp[:, 0] == 1)

    def valid_moves(self, st: States) -> np.ndarray:
        s0, s1, b0 = st.s(0), st.s(1), st.b(0)
        valid = np.zeros((st.B, N_MOVES), dtype=bool)
        valid[:, SHIFT] = b0 >= 0
        valid[:, LEFT] = s1 >= 1
        valid[:, RIGHT] = s1 >= 0
        if st.finish:  # the root's one arc comes last
            valid[:, RIGHT] &= (s1 >= 1) | ((st.bp == 0) & (st.sp[:, 0] == 2))
        valid[:, SWAP] = (s1 >= 1) & (s1 < s0)
        return valid

    def transitions(self):
        return {SHIFT: self.shift, LEFT: self.left_arc, RIGHT: self.right_arc, SWAP: self.swap}

    @staticmethod
    def shift(st: States, rows, labels, stack) -> None:
        st.push(rows, stack, st.pop_buffer(rows))

    @staticmethod
    def left_arc(st: States, rows, labels, stack) -> None:
        j = st.pop(rows, stack)
        st.add_arcs(rows, j, st.pop(rows, stack), labels)
        st.push(rows, stack, j)

    def right_arc(self, st: States, rows, labels, stack) -> None:
        j = st.pop(rows, stack)
        head = st.stack[rows, stack, st.sp[rows, stack] - 1]
        st.add_arcs(rows, head, j, np.where(head == 0, self.root_id, labels))

    @staticmethod
    def swap(st: States, rows, labels, stack) -> None:
        j = st.pop(rows, stack)
        st.push_buffer(rows, st.pop(rows, stack))
        st.push(rows, stack, j)
