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
empty, SWITCH only goes to a non-empty stack. At most n more SHIFTs: 10n.

Oracle (section 5.1), with the planes of the links assigned incrementally as
in section 5.2 rather than from a precomputed colouring: a link that crosses
no other link takes the plane of the stack that still holds its left end
(the active one if both do). The links of a connected component of the
crossings graph get their planes together, when the parser first reaches one
of them (b0 is its right end): the nearest such link takes the plane where
its left end is, so no SWITCH is needed for it, and a breadth-first search
of the crossings graph gives the others alternate planes. Then, with p the
active plane:

    LEFT-ARC     if wj -> wi ∈ Ep \\ A
    RIGHT-ARC    if wi -> wj ∈ Ep \\ A
    REDUCE       if some wx, x < i, has a link with wj in Ep \\ A
    SWITCH       if some wx, x < j, has a link with wj in E(1-p) \\ A (never twice in a row)
    SHIFT        otherwise

so it switches only when the next link cannot be built on the active plane.
A tree that is not 2-planar has an odd cycle of crossings: the search leaves
out each link it cannot give a plane (its dependent becomes a root), and the
tree is trained on the links that fit (``not_covered`` counts such trees).
"""
from __future__ import annotations

from collections import deque
from typing import Dict, List, Tuple

import numpy as np

from ..trees import crossings, min_planes
from .planar import Planar
from .state import FEATURES_2STACK, INT, LEFT, REDUCE, RIGHT, SHIFT, SWITCH, Gold, States


class TwoPlanar(Planar):
    name = "2-planar"
    moves = (SHIFT, REDUCE, LEFT, RIGHT, SWITCH)
    n_stacks = 2
    features = FEATURES_2STACK

    @staticmethod
    def max_steps(n: int) -> int:
        return 10 * n  # 8n without the tree constraint

    def prepare_tree(self, heads, labels):
        return list(heads), list(labels)

    def prepare_batch(self, st: States, gold: Gold) -> None:
        # plane[b, d]: stack (0/1) of the link into d, -1 while unassigned
        gold.plane = np.full(gold.heads.shape, -1, dtype=gold.heads.dtype)
        gold.crossed = np.zeros(gold.heads.shape, dtype=bool)
        gold.cross: Dict[int, Dict[int, List[int]]] = {}
        pairs = []  # (b, d1, d2): the links into d1 and d2 cross (for ``costs``)
        for b, n in enumerate(st.n):
            deps, adj = crossings(gold.heads[b, 1:n + 1])
            if not adj.any():
                continue
            i, k = np.nonzero(np.triu(adj))
            pairs.extend((b, int(deps[a]), int(deps[c])) for a, c in zip(i, k))
            graph = {int(deps[i]): [int(deps[k]) for k in np.flatnonzero(adj[i])] for i in range(len(deps))}
            gold.cross[b] = {d: v for d, v in graph.items() if v}
            gold.crossed[b, list(gold.cross[b])] = True
        gold.pairs = np.array(pairs, dtype=INT).reshape(-1, 3)

    def select_gold(self, gold: Gold, keep: np.ndarray) -> Gold:
        out = super().select_gold(gold, keep)
        new_row = np.full(gold.heads.shape[0], -1, dtype=INT)
        new_row[keep] = np.arange(len(keep))
        out.cross = {int(new_row[b]): graph for b, graph in gold.cross.items() if new_row[b] >= 0}
        pairs = gold.pairs[new_row[gold.pairs[:, 0]] >= 0]
        out.pairs = np.column_stack([new_row[pairs[:, 0]], pairs[:, 1:]]).astype(INT).reshape(-1, 3)
        return out

    def _assign_component(self, gold: Gold, b: int, first: int, plane: int) -> None:
        """Give the crossing component of link ``first`` its planes by BFS."""
        graph = gold.cross[b]
        gold.plane[b, first] = plane
        queue = deque([first])
        while queue:
            u = queue.popleft()
            for v in graph[u]:
                if gold.heads[b, v] <= 0:
                    continue  # a root arc, or a link left out
                if gold.plane[b, v] < 0:
                    gold.plane[b, v] = 1 - gold.plane[b, u]
                    queue.append(v)
                elif gold.plane[b, v] == gold.plane[b, u]:
                    # an odd cycle: not 2-planar; leave this link out
                    gold.heads[b, v] = 0
                    gold.labels[b, v] = self.root_id
                    gold.plane[b, v] = -1

    def exploration_targets(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """The cheapest actions, narrowed to the static oracle's action where
        it is one of them. 2-planar has many ways of building the same tree
        (a link that crosses nothing can go on either plane; a word on both
        stacks can be reduced from one and linked on the other: REDUCE or
        SWITCH, LEFT-ARC or REDUCE), and on Gothic train a third of the
        static oracle's states have several cheapest actions (1-planar:
        none). Trained towards all of them, and
        following whichever the model scores highest, 2-planar lost 0.7 LAS
        on Gothic even without exploring errors; trained towards the static
        oracle's choice wherever it is cheapest, it learns one way of doing
        things, and the cost-based oracle only decides in the states the
        static oracle was not made for, after the parser's own errors.
        (``oracle`` assigns the planes of a crossing component when it first
        reaches it, also in such states.)"""
        valid, cheapest = self.cheapest_actions(st, gold)
        static = self._static_action(st, gold)
        canonical = cheapest[st.rows, static]
        targets = np.zeros_like(cheapest)
        targets[st.rows, static] = True
        return valid, np.where(canonical[:, None], targets, cheapest)

    def _static_action(self, st: States, gold: Gold) -> np.ndarray:
        """The static oracle's action in each state, memoised with the states
        (an exploring step asks twice: ``exploration_targets`` and
        ``kept_rows``)."""
        return st.memoised(("static", id(gold)), lambda: self.table.action(*self.oracle(st, gold)))

    def kept_rows(self, st: States, gold: Gold, targets: np.ndarray) -> np.ndarray:
        """Where the static oracle's action is a target (it costs nothing)
        and puts a link on its plane: SWITCH, or the arc of a link that
        crosses another (section 5.2's plane assignment). Training with
        exploration and ``exploration_keep_order`` follows the targets there
        (the oracle's action) rather than the model's prediction, as swap
        keeps its oracle's SWAPs; every other move explores."""
        static = self._static_action(st, gold)
        move = self.table.move_of[static]
        dep = np.where(move == LEFT, np.maximum(st.s(0), 0), np.maximum(st.b(0), 0))
        crossing_arc = ((move == LEFT) | (move == RIGHT)) & gold.crossed[st.rows, dep]
        return targets[st.rows, static] & ((move == SWITCH) | crossing_arc)

    def oracle(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        active = st.active
        s0, b0 = st.s(0), st.b(0)
        rows = st.rows[:, None]
        pending, dep = gold.links_to(st, b0)
        # components reached for the first time get their planes now
        fresh = pending & gold.crossed[rows, dep] & (gold.plane[rows, dep] < 0)
        if fresh.any():
            in_active = st.in_stack(active)
            for b in np.flatnonzero(fresh.any(axis=1)):
                while True:
                    xs = np.flatnonzero(fresh[b])
                    if len(xs) == 0:
                        break
                    x = xs[-1]  # the nearest left end
                    self._assign_component(gold, b, int(dep[b, x]), int(active[b] if in_active[b, x] else 1 - active[b]))
                    pend_b, dep_b = gold.links_to(st, b0)
                    pending[b], dep[b] = pend_b[b], dep_b[b]
                    fresh[b] = pending[b] & gold.crossed[b, dep[b]] & (gold.plane[b, dep[b]] < 0)
        plane = gold.plane[rows, dep]
        free = plane < 0
        if free.any():
            # uncrossed links: the plane of the stack that still holds the left end
            in_active = st.in_stack(active)
            plane = np.where(free, np.where(in_active, active[:, None], 1 - active[:, None]), plane)
        on_active = plane == active[:, None]
        x = np.arange(st.T)[None, :]
        s0c = np.maximum(s0, 0)
        link_s0 = (s0 >= 0) & pending[st.rows, s0c]
        arc_here = link_s0 & on_active[st.rows, s0c]
        left = arc_here & (st.at(gold.heads, s0) == b0)
        right = arc_here & (st.at(gold.heads, b0) == s0)
        reduce = (s0 >= 0) & (pending & on_active & (x < s0[:, None])).any(axis=1)
        switch = (pending & ~on_active).any(axis=1) & (st.last != SWITCH)
        moves = np.select([left, right, reduce, switch], [LEFT, RIGHT, REDUCE, SWITCH], SHIFT)
        labels = np.select([left, right], [st.at(gold.labels, s0), st.at(gold.labels, b0)], -1)
        # the link built now stays on the active plane
        built = np.flatnonzero(left | right)
        gold.plane[built, np.where(left, s0, b0)[built]] = active[built]
        return moves, labels

    def covers(self, heads, labels) -> bool:
        return min_planes(heads) <= 2
