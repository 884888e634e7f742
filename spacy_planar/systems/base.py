"""What every transition system has, and the batched drivers around it.

A system describes its configuration, transitions (``valid_moves`` and
``apply``), terminal test and static oracle over :class:`States`; the drivers
here run any of them over many sentences at once.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from .state import FEATURES_1STACK, INT, LABEL_FEATURES, MOVE_NAMES, ActionTable, FeaturePlan, Gold, States

Tree = Tuple[Sequence[int], Sequence[str]]

# the dynamic oracles' extra cost of a move the static oracle would not make
# (less than a link), so that ties go the static oracle's way
PREFER = 0.5


class TransitionSystem:
    """Base class. Subclasses set ``name``, ``moves`` and implement
    ``valid_moves``, ``transitions``, ``oracle`` and ``max_steps``."""

    name = "base"
    moves: Tuple[int, ...] = ()
    n_stacks = 1
    root_on_stack = False
    features: Tuple[str, ...] = FEATURES_1STACK
    label_features: Tuple[str, ...] = LABEL_FEATURES

    def __init__(self, labels: Sequence[str], root_label: str = "root"):
        labels = list(labels)
        if root_label not in labels:
            labels.append(root_label)
        self.table = ActionTable(self.moves, labels)
        self.labels = self.table.labels
        self.label_ids = {l: i for i, l in enumerate(self.labels)}
        self.root_label = root_label
        self.root_id = self.label_ids[root_label]

    # --- to be described by each system ------------------------------------------
    def valid_moves(self, st: States) -> np.ndarray:
        """[B, 6] boolean: which moves are allowed in each state."""
        raise NotImplementedError

    def transitions(self) -> Dict[int, Callable]:
        """move -> function(states, rows, label ids, stacks) applying it to those rows."""
        raise NotImplementedError

    def apply_moves(self, st: States, idx: np.ndarray, moves: np.ndarray, labels: np.ndarray) -> None:
        """Apply each row's move: rows are grouped by move, one call per move."""
        stacks = st.active[idx]
        for move, apply in self.transitions().items():
            sel = moves == move
            if sel.any():
                apply(st, idx[sel], labels[sel], stacks[sel])

    def oracle(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """The static oracle's (move, label id) for every state."""
        raise NotImplementedError

    @staticmethod
    def max_steps(n: int) -> int:
        raise NotImplementedError

    def terminal(self, st: States) -> np.ndarray:
        """The terminal test of the system (default: the buffer is empty)."""
        return st.bp == 0

    def is_final(self, st: States) -> np.ndarray:
        """``terminal``, memoised until the states change."""
        return st.memoised(("final", 0), lambda: self.terminal(st))

    def costs(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """The dynamic oracle: ([B, 6] cost of each move, inf where invalid;
        [B, 6] the gold label of the arc a LEFT / RIGHT-ARC would build, -1
        where that arc is not gold)."""
        raise NotImplementedError

    def cheapest_actions(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """([B, n_actions] valid, [B, n_actions] cheapest) from ``costs``: an
        arc with another label than the gold one costs one link more; final
        states have no valid action."""
        cost, gold_label = self.costs(st, gold)
        acts = self.table
        arc_label = gold_label[:, acts.move_of]
        act_cost = cost[:, acts.move_of] + ((arc_label >= 0) & (acts.label_of[None, :] >= 0)
                                            & (acts.label_of[None, :] != arc_label))
        act_cost[self.is_final(st)] = np.inf
        valid = np.isfinite(act_cost)
        return valid, valid & (act_cost == act_cost.min(axis=1, keepdims=True))

    def exploration_targets(self, st: States, gold: Gold) -> Tuple[np.ndarray, np.ndarray]:
        """([B, n_actions] valid, [B, n_actions] targets): what training with
        exploration trains each state towards and follows where it does not
        follow the model. By default all the cheapest actions
        (``cheapest_actions``); see ``TwoPlanar`` for a narrower choice."""
        return self.cheapest_actions(st, gold)

    def kept_rows(self, st: States, gold: Gold, targets: np.ndarray) -> np.ndarray:
        """[B] the rows whose targets (``exploration_targets``) include a move
        by which the static oracle builds the non-projective structure (swap:
        its reordering of the words; 2-planar: its planes), which training
        with exploration then takes from the oracle rather than from the
        model (the component's ``exploration_keep_order``). No row by
        default; see ``Swap`` and ``TwoPlanar``."""
        return np.zeros(st.B, dtype=bool)

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        """The tree the oracle derives from a gold tree (identity by default;
        arc-eager projectivizes, planar drops the links that do not fit)."""
        return list(heads), list(labels)

    def prepare_batch(self, st: States, gold: Gold) -> None:
        """Per-batch oracle bookkeeping (plane assignment, projective order)."""

    def select_gold(self, gold: Gold, keep: np.ndarray) -> Gold:
        """The gold of the rows ``keep`` (as ``States.select`` keeps the
        states' rows): every per-row array of ``gold``, those that
        ``prepare_batch`` added included. A system whose bookkeeping is not
        per-row arrays extends this (``TwoPlanar``)."""
        B = gold.heads.shape[0]
        out = Gold(gold.heads[keep], gold.labels[keep])
        for name, value in vars(gold).items():
            if name not in ("heads", "labels") and isinstance(value, np.ndarray) and value.shape[:1] == (B,):
                setattr(out, name, value[keep])
        return out

    def covers(self, heads: Sequence[int], labels: Sequence[str]) -> bool:
        """Whether the system can derive this gold tree exactly."""
        return True

    def decode_tree(self, heads: List[int], labels: List[str]) -> Tree:
        """The parser's tree in the treebank's terms (arc-eager deprojectivizes)."""
        return heads, labels

    # --- shared -------------------------------------------------------------
    def init_states(self, lengths: Sequence[int], finish: bool = False) -> States:
        """Initial configurations; ``finish``: parse under the tree constraint
        (one root per sentence) where the system has one (the planar systems)."""
        return States(lengths, n_stacks=self.n_stacks, root_on_stack=self.root_on_stack, finish=finish)

    def valid_actions(self, st: States) -> np.ndarray:
        """[B, n_actions] boolean mask, all False for final states."""
        valid = self.valid_moves(st) & ~self.is_final(st)[:, None]
        return valid[:, self.table.move_of]

    def apply(self, st: States, actions: np.ndarray) -> None:
        """Apply one action per state (ignored where -1 or the state is final)."""
        live = (actions >= 0) & ~self.is_final(st)
        idx = np.flatnonzero(live)
        if len(idx) == 0:
            return
        moves = self.table.move_of[actions[idx]]
        labels = self.table.label_of[actions[idx]]
        self.apply_moves(st, idx, moves, labels)
        st.last[idx] = moves
        st.steps[idx] += 1

    def get_features(self, st: States, offsets: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(feature tokens [B, F], label ids of their arcs [B, L]); tokens are
        word - 1 + ``offsets[b]`` (default 0), -1 where absent."""
        key = (tuple(self.features), tuple(self.label_features))
        if getattr(self, "_plan_key", None) != key:
            self._plan, self._plan_key = FeaturePlan(*key), key
        return self._plan.gather(st, offsets)

    def label_tree(self, tree: Tree) -> Tuple[List[int], List[int]]:
        heads, labels = tree
        return list(heads), [self.label_ids.get(l, self.root_id) for l in labels]

    def output_trees(self, st: States, rows: Optional[Sequence[int]] = None) -> List[Tree]:
        """Final trees (of ``rows``, default all) with string labels, decoded
        (headless words are roots)."""
        out = []
        for heads, labels in st.trees(self.root_id, rows):
            out.append(self.decode_tree(heads, [self.labels[l] for l in labels]))
        return out


def oracle_run(system: TransitionSystem, trees: Sequence[Tree], with_features: bool = False
               ) -> Iterator[Tuple[str, object]]:
    """Run the static oracle over a batch of prepared gold trees.

    Yields ("step", (rows, features, label features, actions, valid moves
    [rows, 6])) for
    every transition when ``with_features`` (the training data), and finally ("done", (states,
    moves counter)). Raises RuntimeError if a state outlives its bound.
    """
    lengths = [len(h) for h, _ in trees]
    st = system.init_states(lengths)
    gold = Gold.from_trees([system.label_tree(t) for t in trees], st.T)
    system.prepare_batch(st, gold)
    bound = np.array([system.max_steps(n) for n in lengths], dtype=INT)
    counts = np.zeros(len(MOVE_NAMES), dtype=INT)
    while True:
        final = system.is_final(st)
        if final.all():
            break
        moves, labels = system.oracle(st, gold)
        actions = system.table.action(moves, labels)
        actions[final] = -1
        rows = np.flatnonzero(~final)
        moves_ok = system.valid_moves(st)[rows]  # validity does not depend on the label
        bad = rows[~moves_ok[np.arange(len(rows)), moves[rows]]]
        if len(bad):
            raise RuntimeError(f"{system.name} oracle chose an invalid move "
                               f"{MOVE_NAMES[moves[bad[0]]]} in sentence {bad[0]} of the batch")
        if with_features:
            feats, labs = system.get_features(st)
            yield "step", (rows, feats[rows], labs[rows], actions[rows], moves_ok)
        counts += np.bincount(moves[rows], minlength=len(MOVE_NAMES))
        system.apply(st, actions)
        if (st.steps > bound).any():
            raise RuntimeError(f"{system.name}: a state outlived its bound")
    yield "done", (st, Counter({MOVE_NAMES[m]: int(c) for m, c in enumerate(counts) if c}))


def oracle_targets(system: TransitionSystem, actions: np.ndarray, valid_moves: np.ndarray
                   ) -> Tuple[np.ndarray, np.ndarray]:
    """The static oracle's steps (``oracle_run``'s actions and valid moves)
    in the form ``exploration_run`` records states: ([n, n_actions] targets,
    the oracle's action alone; [n, n_actions] valid actions)."""
    move_of = system.table.move_of
    targets = np.zeros((len(actions), len(move_of)), dtype=bool)
    targets[np.arange(len(actions)), actions] = True
    return targets, valid_moves[:, move_of]


def random_run(system: TransitionSystem, lengths: Sequence[int], rng: np.random.Generator,
               finish: bool = False) -> Tuple[States, np.ndarray]:
    """Drive states with uniformly random valid actions until all are final
    (``finish``: under the tree constraint); returns the states and the
    number of transitions of each."""
    st = system.init_states(lengths, finish=finish)
    bound = np.array([system.max_steps(n) for n in lengths], dtype=INT)
    while not system.is_final(st).all():
        valid = system.valid_actions(st)
        live = valid.any(axis=1)
        if not (live | system.is_final(st)).all():
            raise RuntimeError(f"{system.name}: a non-final state has no valid action")
        scores = rng.random(valid.shape) + valid * 2.0
        actions = np.where(live, scores.argmax(axis=1), -1)
        system.apply(st, actions)
        if (st.steps > bound).any():
            raise RuntimeError(f"{system.name}: a state outlived its bound")
    return st, st.steps.copy()


def exploration_run(system: TransitionSystem, st: States, gold: Gold, score: Callable,
                    exploration, offsets: np.ndarray, compact_below: float = 0.75, keep_order: bool = False
                    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parse a batch for training with exploration (Goldberg & Nivre 2012's
    error exploration): at each step every live state records its features and
    its targets (``exploration_targets``), then follows the model's best
    valid action with probability ``exploration`` (one for all rows, or an
    array of one per row), else its best-scored target; with ``keep_order``,
    always its best-scored target in the rows where a target builds the
    non-projective structure as the static oracle does (``kept_rows``:
    swap's SWAP, 2-planar's SWITCH and crossing links).
    ``score(features, label features)`` -> [rows, n_actions] scores.

    Returns (feature tokens, label features, targets, valid actions) of
    every state visited, one row each. Finished states are dropped from the
    batch whenever fewer than ``compact_below`` of its rows are live (on
    Gothic a batch's rows are a fifth live on average: the longest sentence
    sets the number of steps), so a step costs in proportion to the live
    states; the random draws are made for the original rows, so the run is
    the same with or without dropping (``compact_below = 0``)."""
    rows = np.arange(st.B)  # the original row of each state
    B0 = st.B
    exploration = np.broadcast_to(np.asarray(exploration, dtype=np.float64), (B0,))
    ids, labs, targets, valids = [], [], [], []
    while True:
        live = ~system.is_final(st)
        n_live = int(live.sum())
        if n_live == 0:
            break
        if n_live < compact_below * st.B:
            keep = np.flatnonzero(live)
            st, gold = st.select(keep), system.select_gold(gold, keep)
            rows, offsets, live = rows[keep], offsets[keep], live[keep]
        f, l = system.get_features(st, offsets)
        scores = score(f, l)
        valid, target = system.exploration_targets(st, gold)
        ids.append(f[live]), labs.append(l[live]), targets.append(target[live]), valids.append(valid[live])
        predicted = np.where(valid, scores, -np.inf).argmax(axis=1)
        best_target = np.where(target, scores, -np.inf).argmax(axis=1)
        follow = (np.random.random(B0) < exploration)[rows]
        if keep_order:
            follow &= ~system.kept_rows(st, gold, target)
        system.apply(st, np.where(live, np.where(follow, predicted, best_target), -1))
    return np.concatenate(ids), np.concatenate(labs), np.concatenate(targets), np.concatenate(valids)


def batches(lengths: Sequence[int], size: int) -> List[np.ndarray]:
    """Indices grouped into batches of similar length (less padding)."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i:i + size] for i in range(0, len(order), size)]


def oracle_check(system: TransitionSystem, trees: Sequence[Tree], batch_size: int = 512) -> Dict:
    """Run the oracle over gold trees: how many come back exactly (after
    decoding), how many the system cannot cover, transitions per move."""
    prepared = [system.prepare_tree(h, l) for h, l in trees]
    reproduced = 0
    counts: Counter = Counter()
    for idx in batches([len(h) for h, _ in trees], batch_size):
        for kind, payload in oracle_run(system, [prepared[i] for i in idx]):
            if kind == "done":
                st, moves = payload
                counts.update(moves)
                for i, tree in zip(idx, system.output_trees(st)):
                    reproduced += tree == (list(trees[i][0]), list(trees[i][1]))
    return {"trees": len(trees), "reproduced": reproduced,
            "not_covered": sum(not system.covers(h, l) for h, l in trees),
            "transitions": dict(sorted(counts.items()))}
