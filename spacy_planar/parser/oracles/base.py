"""What every oracle has: a per-batch object over the gold trees of a batch
of states, apart from the transition system it trains (in the shape of
Parsito's per-tree oracles: built once per batch, asked per state).

An oracle's declared fields are per-row arrays padded like the states
(``heads[b, w]``, ``labels[b, w]``: the links it trains on) plus what its
system's oracle needs (``TwoPlanarOracle``'s planes, ``SwapOracle``'s
projective order). It answers, for every state of the batch at once:

* ``static(st)``: the static oracle's (move, label id);
* ``costs(st)``: the dynamic oracle's cost of each move;
* ``cheapest(st)`` / ``targets(st)``: the actions training moves towards;
* ``kept(st, targets)``: the rows where training with exploration takes the
  static oracle's move rather than the model's (``exploration_keep_order``).
"""
from __future__ import annotations

from typing import ClassVar, Sequence, Tuple

import numpy as np

from spacy_planar.parser.systems.base import TransitionSystem
from spacy_planar.parser.systems.state import INT, LEFT, REDUCE, RIGHT, SHIFT, States

# the dynamic oracles' extra cost of a move the static oracle would not make
# (less than a link), so that ties go the static oracle's way
PREFER = 0.5

LabelledTree = Tuple[Sequence[int], Sequence[int]]  # heads, label ids


def select(conditions: Sequence[np.ndarray], choices: Sequence, default) -> np.ndarray:
    """``np.select``'s answer (each row takes the choice of its first true
    condition, else the default; its dtype too), by ``np.where`` from the
    last condition back: ``np.select`` checks its arguments at some 25 us a
    call, and the oracles call it at every step of every batch."""
    dtype = np.result_type(*choices, default)
    out = np.asarray(default, dtype=dtype)
    for condition, choice in zip(reversed(conditions), reversed(choices)):
        out = np.where(condition, choice, out)
    return out.astype(dtype, copy=False)


class Oracle:
    """Base class: gold links and the generic answers derived from ``costs``."""

    # the per-row arrays that ``select`` keeps (subclasses add theirs)
    row_fields: ClassVar[Tuple[str, ...]] = ("heads", "labels")

    def __init__(self, system: TransitionSystem, st: States, trees: Sequence[LabelledTree]):
        """``trees``: the batch's prepared gold trees (``system.prepare_tree``,
        labels as ids: ``system.label_tree``), one per row of ``st``."""
        self.system = system
        B, T = len(trees), st.T
        self.heads = np.full((B, T), -1, dtype=INT)  # gold head of each word, -1: padding / left out
        self.labels = np.full((B, T), -1, dtype=INT)  # gold label id
        for b, (h, l) in enumerate(trees):
            self.heads[b, 1:len(h) + 1] = h
            self.labels[b, 1:len(l) + 1] = l
        self.prepare(st)

    def prepare(self, st: States) -> None:
        """Per-batch bookkeeping of the system's oracle (none by default)."""

    def select(self, keep: np.ndarray) -> "Oracle":
        """The oracle of the rows ``keep`` (as ``States.select`` keeps the
        states' rows): every field of ``row_fields``, row by row."""
        # a copy with the rows' fields cut, not the constructor: the constructor computes every gold tree's
        # plan again (the oracle is computed when built), which these rows already have
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        for name in self.row_fields:
            value = getattr(self, name)
            if value is not None:
                setattr(out, name, value[keep])
        return out

    # --- to be described by each oracle -----------------------------------------
    def static(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """The static oracle's (move, label id) for every state."""
        raise NotImplementedError

    def costs(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """The dynamic oracle: ([B, N_MOVES] cost of each move, inf where invalid;
        [B, N_MOVES] the gold label of the arc a LEFT / RIGHT-ARC would build, -1
        where that arc is not gold)."""
        raise NotImplementedError

    # --- shared -----------------------------------------------------------------
    def static_actions(self, st: States) -> np.ndarray:
        """The static oracle's action ids, memoised with the states (an
        exploring step may ask twice)."""
        return st.memoised(("static", id(self)), lambda: self.system.action_of(*self.static(st)))

    def cheapest(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """([B, n_actions] valid, [B, n_actions] cheapest) from ``costs``: an
        arc with another label than the gold one costs one link more; final
        states have no valid action."""
        cost, gold_label = self.costs(st)
        acts = self.system.table
        arc_label = gold_label[:, acts.move_of]
        act_cost = cost[:, acts.move_of] + ((arc_label >= 0) & (acts.label_of[None, :] >= 0)
                                            & (acts.label_of[None, :] != arc_label))
        act_cost[self.system.is_final(st)] = np.inf
        valid = np.isfinite(act_cost)
        return valid, valid & (act_cost == act_cost.min(axis=1, keepdims=True))

    def targets(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """([B, n_actions] valid, [B, n_actions] targets): what training with
        exploration trains each state towards and follows where it does not
        follow the model. By default all the cheapest actions; see
        ``TwoPlanarOracle`` for a narrower choice."""
        return self.cheapest(st)

    def kept(self, st: States, targets: np.ndarray) -> np.ndarray:
        """[B] the rows whose targets include a move by which the static
        oracle builds the non-projective structure (swap: its order of the
        words; 2-planar: its planes), which training with exploration then
        takes from the oracle rather than from the model. No row by default."""
        return np.zeros(st.B, dtype=bool)

    def link_or_reduce(self, st: States, arcs_on_headless: bool, reduce_needs_head: bool
                       ) -> Tuple[np.ndarray, np.ndarray]:
        """The static oracle that arc-eager and planar share (the planar one
        of Gómez-Rodríguez & Nivre 2010, section 4.3; arc-eager's as in Nivre
        & Nilsson 2005): LEFT-ARC if b0 -> s0 is gold, RIGHT-ARC if s0 -> b0,
        REDUCE if b0 has a gold link still to build with a word left of s0,
        SHIFT otherwise. ``arcs_on_headless``: an arc only onto a word
        without a head (planar arcs leave their words in place);
        ``reduce_needs_head``: REDUCE only a word with its head (arc-eager)."""
        s0, b0 = st.s(0), st.b(0)
        both = (s0 >= 0) & (b0 >= 0)
        left = both & (st.at(self.heads, s0) == b0)
        right = both & (st.at(self.heads, b0) == s0)
        if arcs_on_headless:
            left &= st.at(st.heads, s0) < 0
            right &= st.at(st.heads, b0) < 0
        pending, _ = self.links_to(st, b0)
        x = np.arange(st.T)[None, :]
        reduce = both & (pending & (x < s0[:, None])).any(axis=1)
        if reduce_needs_head:
            reduce &= st.at(st.heads, s0) >= 0
        moves = select([left, right, reduce], [LEFT, RIGHT, REDUCE], SHIFT)
        labels = select([left, right], [st.at(self.labels, s0), st.at(self.labels, b0)], -1)
        return moves, labels

    def links_to(self, st: States, j: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """The gold links still to build between j[b] and words x < j[b]:
        ([B, T] mask over x, [B, T] the link's dependent: x or j)."""
        x = np.arange(self.heads.shape[1])[None, :]
        jj = j[:, None]
        head_j = np.where(j >= 0, self.heads[st.rows, np.maximum(j, 0)], -1)[:, None]
        as_head = (self.heads == jj) & (x < jj) & (jj > 0)
        as_dep = (x == head_j) & (x > 0) & (x < jj)
        built_dep = st.heads >= 0
        built_j = np.where(j >= 0, st.heads[st.rows, np.maximum(j, 0)] >= 0, True)[:, None]
        mask = (as_head & ~built_dep) | (as_dep & ~built_j)
        return mask, np.where(as_head, x, jj)

    def n_deps(self) -> np.ndarray:
        """Gold dependents per word [B, T] (the root included, at 0)."""
        B, T = self.heads.shape
        out = np.zeros((B, T), dtype=INT)
        r, c = np.nonzero(self.heads >= 0)
        np.add.at(out, (r, self.heads[r, c]), 1)
        return out
