"""2-planar's oracles (``systems/two_planar.py``; Gómez-Rodríguez & Nivre 2010).

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
tree is trained on the links that fit (``not_covered`` counts such trees):
the oracle's ``heads`` are the links it trains on, its own copy.

The planes depend on the stacks when the parser reaches each component, so
they are computed when the oracle is built: ``prepare`` runs the static
oracle's derivation once over the rows whose gold trees have crossing links
(``_plan``), assigning them as it goes; after that the oracle answers
without changing (off the gold derivation, while exploring, the planes are
the gold derivation's).

Dynamic oracle: ``planar.link_costs`` with the crossing pairs of the gold
trees, narrowed to the static oracle's action where that is among the
cheapest (``targets``).
"""
from __future__ import annotations

from collections import deque
from typing import Dict, List, Tuple

import numpy as np

from spacy_planar.parser.oracles.base import select
from spacy_planar.parser.oracles.planar import PlanarOracle
from spacy_planar.parser.systems.state import INT, LEFT, REDUCE, RIGHT, SHIFT, SWITCH, States
from spacy_planar.trees.algorithms import crossings


class TwoPlanarOracle(PlanarOracle):
    row_fields = PlanarOracle.row_fields + ("plane", "crossed")

    plane: np.ndarray  # [B, T] the plane (stack 0 / 1) of the link into each word, -1 while unassigned
    crossed: np.ndarray  # [B, T] the link into each word crosses another
    cross: Dict[int, Dict[int, List[int]]]  # row -> dependent -> the dependents of the links it crosses
    pairs: np.ndarray  # [P, 3] (row, d1, d2): the links into d1 and d2 cross, sorted by row

    def prepare(self, st: States) -> None:
        self.plane = np.full(self.heads.shape, -1, dtype=self.heads.dtype)
        self.crossed = np.zeros(self.heads.shape, dtype=bool)
        self.cross = {}
        pairs = []
        for b, n in enumerate(st.n):
            deps, adj = crossings(self.heads[b, 1:n + 1])
            if not adj.any():
                continue
            i, k = np.nonzero(np.triu(adj))
            pairs.extend((b, int(deps[a]), int(deps[c])) for a, c in zip(i, k))
            graph = {int(deps[i]): [int(deps[k]) for k in np.flatnonzero(adj[i])] for i in range(len(deps))}
            self.cross[b] = {d: v for d, v in graph.items() if v}
            self.crossed[b, list(self.cross[b])] = True
        self.pairs = np.array(pairs, dtype=INT).reshape(-1, 3)
        if self.cross:
            self._plan(st, np.array(sorted(self.cross), dtype=INT))

    def _plan(self, st: States, rows: np.ndarray) -> None:
        """The static oracle's derivation of the gold trees of ``rows`` (from
        the initial states ``st``), which gives each crossing component its
        planes when it is first reached (``_reach_components``) and leaves
        out the links of an odd cycle of crossings."""
        system = self.system
        sim = st.select(rows)
        view = object.__new__(TwoPlanarOracle)  # the oracle of those rows, writing into this one's arrays
        view.__dict__.update(self.__dict__)
        view.heads, view.labels, view.plane = self.heads[rows], self.labels[rows], self.plane[rows]
        view.crossed = self.crossed[rows]
        view.cross = {k: self.cross[b] for k, b in enumerate(rows.tolist())}
        bound = 10 * int(sim.n.max()) + 10 if len(rows) else 0
        for _ in range(bound):
            live = ~system.is_final(sim)
            if not live.any():
                break
            moves, labels = view._static(sim, assign=True)
            system.apply(sim, np.where(live, system.action_of(moves, labels), -1))
        self.heads[rows], self.labels[rows], self.plane[rows] = view.heads, view.labels, view.plane

    def select(self, keep: np.ndarray) -> "TwoPlanarOracle":
        out = super().select(keep)
        new_row = np.full(self.heads.shape[0], -1, dtype=INT)
        new_row[keep] = np.arange(len(keep))
        out.cross = {int(new_row[b]): graph for b, graph in self.cross.items() if new_row[b] >= 0}
        pairs = self.pairs[new_row[self.pairs[:, 0]] >= 0]
        out.pairs = np.column_stack([new_row[pairs[:, 0]], pairs[:, 1:]]).astype(INT).reshape(-1, 3)
        return out

    def _assign_component(self, b: int, first: int, plane: int) -> None:
        """Give the crossing component of link ``first`` its planes by BFS."""
        graph = self.cross[b]
        self.plane[b, first] = plane
        queue = deque([first])
        while queue:
            u = queue.popleft()
            for v in graph[u]:
                if self.heads[b, v] <= 0:
                    continue  # a root arc, or a link left out
                if self.plane[b, v] < 0:
                    self.plane[b, v] = 1 - self.plane[b, u]
                    queue.append(v)
                elif self.plane[b, v] == self.plane[b, u]:
                    # an odd cycle: not 2-planar; leave this link out
                    self.heads[b, v] = 0
                    self.labels[b, v] = self.system.root_id
                    self.plane[b, v] = -1

    def targets(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """The cheapest actions, narrowed to the static oracle's action where
        it is one of them. 2-planar has many ways of building the same tree
        (a link that crosses nothing can go on either plane; a word on both
        stacks can be reduced from one and linked on the other), and trained
        towards all of them it learns no one way of doing things
        (docs/decisions.md); the cost-based oracle decides only in the
        states the static oracle was not made for, after the parser's own
        errors."""
        valid, cheapest = self.cheapest(st)
        static = self.static_actions(st)
        canonical = cheapest[st.rows, static]
        targets = np.zeros_like(cheapest)
        targets[st.rows, static] = True
        return valid, np.where(canonical[:, None], targets, cheapest)

    def kept(self, st: States, targets: np.ndarray) -> np.ndarray:
        """Where the static oracle's action is a target (it costs nothing)
        and puts a link on its plane: SWITCH, or the arc of a link that
        crosses another (section 5.2's plane assignment)."""
        static = self.static_actions(st)
        move = self.system.table.move_of[static]
        dep = np.where(move == LEFT, np.maximum(st.s(0), 0), np.maximum(st.b(0), 0))
        crossing_arc = ((move == LEFT) | (move == RIGHT)) & self.crossed[st.rows, dep]
        return targets[st.rows, static] & ((move == SWITCH) | crossing_arc)

    def _reach_components(self, st: States, pending: np.ndarray, dep: np.ndarray) -> None:
        """Give their planes to the crossing components that the pending
        links to b0 reach for the first time (``pending`` and ``dep``, from
        ``links_to``, are brought up to date)."""
        rows = st.rows[:, None]
        fresh = pending & self.crossed[rows, dep] & (self.plane[rows, dep] < 0)
        if not fresh.any():
            return
        active, b0 = st.active, st.b(0)
        in_active = st.in_stack(active)
        for b in np.flatnonzero(fresh.any(axis=1)):
            while True:
                xs = np.flatnonzero(fresh[b])
                if len(xs) == 0:
                    break
                x = xs[-1]  # the nearest left end
                self._assign_component(b, int(dep[b, x]), int(active[b] if in_active[b, x] else 1 - active[b]))
                pend_b, dep_b = self.links_to(st, b0)
                pending[b], dep[b] = pend_b[b], dep_b[b]
                fresh[b] = pending[b] & self.crossed[b, dep[b]] & (self.plane[b, dep[b]] < 0)

    def static(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """The static oracle's (move, label id), the planes as ``prepare``
        assigned them."""
        return self._static(st, assign=False)

    def _static(self, st: States, assign: bool) -> Tuple[np.ndarray, np.ndarray]:
        active = st.active
        s0, b0 = st.s(0), st.b(0)
        rows = st.rows[:, None]
        pending, dep = self.links_to(st, b0)
        if assign:
            self._reach_components(st, pending, dep)
        plane = self.plane[rows, dep]
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
        left = arc_here & (st.at(self.heads, s0) == b0)
        right = arc_here & (st.at(self.heads, b0) == s0)
        reduce = (s0 >= 0) & (pending & on_active & (x < s0[:, None])).any(axis=1)
        switch = (pending & ~on_active).any(axis=1) & (st.last != SWITCH)
        moves = select([left, right, reduce, switch], [LEFT, RIGHT, REDUCE, SWITCH], SHIFT)
        labels = select([left, right], [st.at(self.labels, s0), st.at(self.labels, b0)], -1)
        return moves, labels
