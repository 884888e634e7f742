"""Swap's oracles (``systems/swap.py``; Nivre, Kuhlmann & Hall 2009).

Oracles, with <_G the projective order (in-order traversal, ``projective_order``)
and A^i ⊆ A_c meaning "i has all its gold dependents":

    τ1 (eager): LEFT-ARC_l if (j, l, i) ∈ A and A^i ⊆ A_c; RIGHT-ARC_l if (i, l, j) ∈ A
                and A^j ⊆ A_c; SWAP if j <_G i; SHIFT otherwise.
    τ2 (lazy):  the same, but SWAP only if also MPC(j) ≠ MPC(k), k the front of the
                buffer, or the buffer is empty.

MPC(i) is the maximal projective component of i: the subtree that i ends up in
when τ1 without SWAP runs until it stalls (computed once per batch, batched).

Dynamic oracle (``costs``): approximate, static for the word order.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from spacy_planar.parser.oracles.base import PREFER, Oracle, select
from spacy_planar.parser.systems.state import INT, LEFT, N_MOVES, RIGHT, SHIFT, SWAP, States
from spacy_planar.trees.algorithms import projective_order


class SwapOracle(Oracle):
    row_fields = Oracle.row_fields + ("ndeps", "order", "mpc")

    ndeps: np.ndarray  # [B, T] gold dependents of each word
    order: np.ndarray  # [B, T] each word's place in the projective order <_G
    mpc: Optional[np.ndarray]  # [B, T] each word's maximal projective component (lazy oracle), else None

    def prepare(self, st: States) -> None:
        self.ndeps = self.n_deps()
        self.order = np.zeros(self.heads.shape, dtype=INT)
        for b, n in enumerate(st.n):
            self.order[b, :n + 1] = projective_order(self.heads[b, 1:n + 1])
        self.mpc = self.components(st.n) if self.system.lazy else None

    def _arcs(self, st: States) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        s0, s1 = st.s(0), st.s(1)
        complete = st.ndeps == self.ndeps
        left = (s1 >= 1) & (st.at(self.heads, s1) == s0) & (st.at(complete, s1) == 1)
        right = (s1 >= 0) & (st.at(self.heads, s0) == s1) & (st.at(complete, s0) == 1)
        return s0, s1, left, right, select([left, right], [st.at(self.labels, s1), st.at(self.labels, s0)], -1)

    def components(self, lengths: np.ndarray) -> np.ndarray:
        """Maximal projective components: run τ1 without SWAP until it stalls;
        each word's component is named by the root of its subtree then."""
        system = self.system
        st = system.init_states(lengths)
        while True:
            _, _, left, right, labels = self._arcs(st)
            moves = select([left, right], [LEFT, RIGHT], SHIFT)
            go = left | right | (st.b(0) >= 0)
            go &= ~system.is_final(st)
            if not go.any():
                break
            idx = np.flatnonzero(go)
            system.apply_moves(st, idx, moves[idx], labels[idx])
        root = np.tile(np.arange(st.T, dtype=INT), (st.B, 1))
        while True:
            up = st.heads[st.rows[:, None], root]
            if (up < 0).all():
                return root
            root = np.where(up >= 0, up, root)

    def _swap(self, st: States) -> np.ndarray:
        """Where the oracle swaps: j <_G i (and, lazily, MPC(j) ≠ MPC(k) or β empty).
        Memoised with the states (an exploring step asks twice: ``costs`` and
        ``kept``)."""
        def swap() -> np.ndarray:
            s0, s1 = st.s(0), st.s(1)
            where = (s1 >= 1) & (st.at(self.order, s0) < st.at(self.order, s1))
            if self.mpc is not None:
                b0 = st.b(0)
                where &= (b0 < 0) | (st.at(self.mpc, s0) != st.at(self.mpc, b0))
            return where

        return st.memoised(("swap", id(self)), swap)

    def _sink(self, st: States, alive: np.ndarray, children: np.ndarray) -> np.ndarray:
        """Where SWAP loses nothing although the static oracle's order does
        not ask for it: s0 has all its gold dependents (none waiting), and
        its gold head is on the stack below s1. SWAPs then carry s0 down to
        its head, which takes it; the words swapped past go back to the
        buffer in their order and are shifted again as they were. Without
        this the costs make SHIFT free there, and the words piled on s0 must
        later be sorted past it (the sentence-final mark, whose head is the
        root word far down the stack, ends up under a nearer word:
        docs/decisions.md)."""
        s0, s1 = st.s(0), st.s(1)
        rows = st.rows
        s0c = np.maximum(s0, 0)
        head = self.heads[rows, s0c]
        on_stack = st.in_stack(st.active)
        return ((s1 >= 1) & (s1 < s0) & alive[rows, s0c] & (children[rows, s0c] == 0)
                & (head != s1) & on_stack[rows, head])

    def kept(self, st: States, targets: np.ndarray) -> np.ndarray:
        """Where τ swaps (``_swap``: s0 <_G s1, lazily only between maximal
        projective components, section 3.2) and SWAP is a target: training
        with exploration and ``exploration_keep_order`` follows the targets
        there rather than the model's prediction, so that the sentences with
        a non-projective gold tree keep being sorted into their projective
        order, while every other move explores (docs/decisions.md)."""
        return self._swap(st) & targets[:, self.system.table.move_of == SWAP].any(axis=1)

    def static(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        s0, s1, left, right, labels = self._arcs(st)
        moves = select([left, right, self._swap(st)], [LEFT, RIGHT, SWAP], SHIFT)
        return moves, labels

    def costs(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
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
        arc nor SWAP is free, ``PREFER`` elsewhere."""
        system = self.system
        s0, s1 = st.s(0), st.s(1)
        rows = st.rows
        g = self.heads
        gc = np.maximum(g, 0)
        x = np.arange(st.T)[None, :]
        waiting = (st.heads < 0) & (x >= 1) & (x <= st.n[:, None])  # words still in σ or β
        head_there = (g == 0) | ((g > 0) & waiting[rows[:, None], gc])
        alive = waiting & head_there  # the word can still get its gold head
        children = np.zeros((st.B, st.T), dtype=INT)  # gold dependents still waiting
        r, c = np.nonzero(waiting & (g >= 0))
        np.add.at(children, (r, g[r, c]), 1)
        cost = np.zeros((st.B, N_MOVES))
        label = np.full((st.B, N_MOVES), -1, dtype=INT)
        for move, h, d in ((LEFT, s0, s1), (RIGHT, s1, s0)):
            dc = np.maximum(d, 0)
            is_gold = (d >= 1) & (g[rows, dc] == h)
            cost[:, move] = (alive[rows, dc] & ~is_gold) + children[rows, dc]
            label[:, move] = np.where(is_gold, self.labels[rows, dc], -1)
        valid = system.valid_moves(st)
        free_arc = ((cost[:, [LEFT, RIGHT]] == 0) & valid[:, [LEFT, RIGHT]]).any(axis=1)
        swap = self._swap(st) | self._sink(st, alive, children)
        cost[:, SWAP] = np.where(swap, 0, PREFER)
        cost[:, SHIFT] = np.where(swap | free_arc, PREFER, 0)
        cost[~valid] = np.inf
        cost[:, [m for m in range(6) if m not in system.moves]] = np.inf
        return cost, label
