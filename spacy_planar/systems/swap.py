"""The swap transition system (Nivre 2009) with the eager and the lazy oracle
(Nivre, Kuhlmann & Hall 2009).

Configuration (Σ, B, A), the artificial root 0 at the bottom of the stack;
arcs link the two top words of the stack, and SWAP moves the second word back
to the buffer, reordering the input online.

    LEFT-ARC_l   ([σ|i, j], B, A)  ⇒ ([σ|j], B, A ∪ {(j, l, i)})    only if i ≠ 0
    RIGHT-ARC_l  ([σ|i, j], B, A)  ⇒ ([σ|i], B, A ∪ {(i, l, j)})
    SHIFT        (σ, [i|β], A)     ⇒ ([σ|i], β, A)
    SWAP         ([σ|i, j], β, A)  ⇒ ([σ|j], [i|β], A)               only if 0 < i < j

Terminal: Σ = [0], B = []. Any tree (non-projective too) is reachable. Bound:
a pair of words is swapped at most once (i < j before, j before i after), so
at most n(n - 1)/2 SWAPs, each followed by one more SHIFT: at most
2n + n(n - 1) = n² + n transitions.

Oracles, with <_G the projective order (in-order traversal, ``projective_order``)
and A^i ⊆ A_c meaning "i has all its gold dependents":

    τ1 (eager): LEFT-ARC_l if (j, l, i) ∈ A and A^i ⊆ A_c; RIGHT-ARC_l if (i, l, j) ∈ A
                and A^j ⊆ A_c; SWAP if j <_G i; SHIFT otherwise.
    τ2 (lazy):  the same, but SWAP only if also MPC(j) ≠ MPC(k), k the front of the
                buffer, or the buffer is empty.

MPC(i) is the maximal projective component of i: the subtree that i ends up in
when τ1 without SWAP runs until it stalls (computed once per batch, batched).
"""
from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from ..trees import projective_order
from .base import PREFER, TransitionSystem
from .state import INT, LEFT, RIGHT, SHIFT, SWAP, Gold, States

# Arcs join s1 and s0, so their children matter most (as for arc-standard,
# Chen & Manning 2014); b0 has no dependents in this system but after a SWAP.
FEATURES_SWAP = ("s0", "s1", "s2", "b0", "b1", "b2", "s0.l", "s0.r", "s0.l2", "s0.r2",
                 "s1.l", "s1.r", "s1.l2", "s1.r2")
LABEL_FEATURES_SWAP = ("s0", "s1", "s0.l", "s0.r", "s1.l", "s1.r")


class Swap(TransitionSystem):
    name = "swap"
    moves = (SHIFT, LEFT, RIGHT, SWAP)
    root_on_stack = True
    features = FEATURES_SWAP
    label_features = LABEL_FEATURES_SWAP

    def __init__(self, labels: Sequence[str], root_label: str = "root", lazy: bool = True):
        self.lazy = lazy
        super().__init__(labels, root_label)

    @staticmethod
    def max_steps(n: int) -> int:
        return n * n + n

    def terminal(self, st: States) -> np.ndarray:
        return (st.bp == 0) & (st.sp[:, 0] == 1)

    def valid_moves(self, st: States) -> np.ndarray:
        s0, s1, b0 = st.s(0), st.s(1), st.b(0)
        valid = np.zeros((st.B, 6), dtype=bool)
        valid[:, SHIFT] = b0 >= 0
        valid[:, LEFT] = s1 >= 1
        valid[:, RIGHT] = s1 >= 0
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

    @staticmethod
    def right_arc(st: States, rows, labels, stack) -> None:
        j = st.pop(rows, stack)
        st.add_arcs(rows, st.stack[rows, stack, st.sp[rows, stack] - 1], j, labels)

    @staticmethod
    def swap(st: States, rows, labels, stack) -> None:
        j = st.pop(rows, stack)
        st.push_buffer(rows, st.pop(rows, stack))
        st.push(rows, stack, j)

    def _arcs(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        s0, s1 = st.s(0), st.s(1)
        complete = st.ndeps == gold.ndeps
        left = (s1 >= 1) & (st.at(gold.heads, s1) == s0) & (st.at(complete, s1) == 1)
        right = (s1 >= 0) & (st.at(gold.heads, s0) == s1) & (st.at(complete, s0) == 1)
        return s0, s1, left, right, np.select([left, right], [st.at(gold.labels, s1), st.at(gold.labels, s0)], -1)

    def prepare_batch(self, st: States, gold: Gold) -> None:
        gold.ndeps = gold.n_deps()
        gold.order = np.zeros(gold.heads.shape, dtype=INT)
        for b, n in enumerate(st.n):
            gold.order[b, :n + 1] = projective_order(gold.heads[b, 1:n + 1])
        if self.lazy:
            gold.mpc = self.components(st.n, gold)

    def components(self, lengths: np.ndarray, gold: Gold) -> np.ndarray:
        """Maximal projective components: run τ1 without SWAP until it stalls;
        each word's component is named by the root of its subtree then."""
        st = self.init_states(lengths)
        while True:
            _, _, left, right, labels = self._arcs(st, gold)
            moves = np.select([left, right], [LEFT, RIGHT], SHIFT)
            go = left | right | (st.b(0) >= 0)
            go &= ~self.is_final(st)
            if not go.any():
                break
            idx = np.flatnonzero(go)
            self.apply_moves(st, idx, moves[idx], labels[idx])
        root = np.tile(np.arange(st.T, dtype=INT), (st.B, 1))
        while True:
            up = st.heads[st.rows[:, None], root]
            if (up < 0).all():
                return root
            root = np.where(up >= 0, up, root)

    def _swap(self, st: States, gold: Gold) -> np.ndarray:
        """Where the oracle swaps: j <_G i (and, lazily, MPC(j) ≠ MPC(k) or β empty).
        Memoised with the states (an exploring step asks twice: ``costs`` and
        ``kept_rows``)."""
        def swap() -> np.ndarray:
            s0, s1 = st.s(0), st.s(1)
            where = (s1 >= 1) & (st.at(gold.order, s0) < st.at(gold.order, s1))
            if self.lazy:
                b0 = st.b(0)
                where &= (b0 < 0) | (st.at(gold.mpc, s0) != st.at(gold.mpc, b0))
            return where

        return st.memoised(("swap", id(gold)), swap)

    @staticmethod
    def _sink(st: States, gold: Gold, alive: np.ndarray, children: np.ndarray) -> np.ndarray:
        """Where SWAP loses nothing although the static oracle's order does
        not ask for it: s0 has all its gold dependents (none waiting), and
        its gold head is on the stack below s1. SWAPs then carry s0 down to
        its head, which takes it; the words swapped past go back to the
        buffer in their order and are shifted again as they were, so nothing
        else changes. Without this the costs make SHIFT free there, and the
        words piled on s0 must later be sorted past it: the sentence-final
        mark, whose head is the root word far down the stack, ends up under
        a nearer word. In a projective gold tree the state only follows an
        error; in a non-projective one it can lie on the static oracle's
        path, where sinking s0 is another order that costs nothing (kept
        there too: without it Gothic lost LAS in five seeds of five)."""
        s0, s1 = st.s(0), st.s(1)
        rows = st.rows
        s0c = np.maximum(s0, 0)
        head = gold.heads[rows, s0c]
        on_stack = st.in_stack(st.active)
        return ((s1 >= 1) & (s1 < s0) & alive[rows, s0c] & (children[rows, s0c] == 0)
                & (head != s1) & on_stack[rows, head])

    def kept_rows(self, st: States, gold: Gold, targets: np.ndarray) -> np.ndarray:
        """Where τ swaps (``_swap``: s0 <_G s1, lazily only between maximal
        projective components, section 3.2) and SWAP is a target: training
        with exploration and ``exploration_keep_order`` follows the targets
        there (SWAP, or an arc that costs nothing either) rather than the
        model's prediction, so that the sentences with a
        non-projective gold tree keep being sorted into their projective
        order, while every other move explores. Exploring SWAP as well, the
        model meets few states where a SWAP is still due, and makes few
        (Gothic, five seeds: recall of non-projective arcs 24.2 with the
        order kept against 19.1, LAS 69.03 against 69.05)."""
        return self._swap(st, gold) & targets[:, self.table.move_of == SWAP].any(axis=1)

    def oracle(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        s0, s1, left, right, labels = self._arcs(st, gold)
        moves = np.select([left, right, self._swap(st, gold)], [LEFT, RIGHT, SWAP], SHIFT)
        return moves, labels

    def costs(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """An approximate dynamic oracle, static for the word order (as de
        Lhoneux, Stymne & Nivre 2017 do for arc-hybrid with SWAP): a word
        leaves the configuration when it gets its head, so an arc costs the
        gold links it ends (the dependent's own link, if its gold head is
        still there and is not this head, and the links of its gold
        dependents still waiting). The order is left to the static oracle:
        SWAP costs 0 where τ swaps, and ``PREFER`` (1/2: a preference for
        the static oracle's order, less than a link) elsewhere, but SWAP is
        also free where s0 has all its dependents and its gold head lies
        further down the stack (``_sink``). SHIFT costs 0 where neither an
        arc nor SWAP is free, ``PREFER`` elsewhere. Returns ([B, 6] costs,
        inf where invalid; [B, 6] the gold label of the arc a LEFT /
        RIGHT-ARC would build, -1 where that arc is not gold)."""
        s0, s1 = st.s(0), st.s(1)
        rows = st.rows
        g = gold.heads
        gc = np.maximum(g, 0)
        x = np.arange(st.T)[None, :]
        waiting = (st.heads < 0) & (x >= 1) & (x <= st.n[:, None])  # words still in σ or β
        head_there = (g == 0) | ((g > 0) & waiting[rows[:, None], gc])
        alive = waiting & head_there  # the word can still get its gold head
        children = np.zeros((st.B, st.T), dtype=INT)  # gold dependents still waiting
        r, c = np.nonzero(waiting & (g >= 0))
        np.add.at(children, (r, g[r, c]), 1)
        cost = np.zeros((st.B, 6))
        label = np.full((st.B, 6), -1, dtype=INT)
        for move, h, d in ((LEFT, s0, s1), (RIGHT, s1, s0)):
            dc = np.maximum(d, 0)
            is_gold = (d >= 1) & (g[rows, dc] == h)
            cost[:, move] = (alive[rows, dc] & ~is_gold) + children[rows, dc]
            label[:, move] = np.where(is_gold, gold.labels[rows, dc], -1)
        valid = self.valid_moves(st)
        free_arc = ((cost[:, [LEFT, RIGHT]] == 0) & valid[:, [LEFT, RIGHT]]).any(axis=1)
        swap = self._swap(st, gold) | self._sink(st, gold, alive, children)
        cost[:, SWAP] = np.where(swap, 0, PREFER)
        cost[:, SHIFT] = np.where(swap | free_arc, PREFER, 0)
        cost[~valid] = np.inf
        cost[:, [m for m in range(6) if m not in self.moves]] = np.inf
        return cost, label
