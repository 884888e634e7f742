"""The one loop that drives a transition system over a batch of states,
whatever chooses the moves: the static oracle (``oracle_run``: training
data and the ``oracle`` command), the model while training with exploration
(``exploration_run``), the model alone (``greedy_parse``); beam search
(``beam_parse``, ``beam_train_run``) steps its own small class
(``beam.py``), as spaCy keeps its beam batch beside its parse loop.

Each step, every live state gets one action from the chooser, all at once.
One rule for finished rows: when fewer than ``COMPACT_BELOW`` of the
batch's rows are live, the finished ones are dropped (their trees kept where
the caller wants them), so a step costs in proportion to the live states.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.defaults import COMPACT_BELOW
from spacy_planar.errors import Errors, UnexpectedError, debugging, unexpected
from spacy_planar.parser.transition.beam import Beam, BeamRun, GoldBeam
from spacy_planar.parser.transition.catalog import make_oracle
from spacy_planar.parser.shared.units import batches
from spacy_planar.parser.oracles import Oracle
from spacy_planar.parser.systems.base import TransitionSystem, Tree
from spacy_planar.parser.systems.contract import check
from spacy_planar.parser.systems.state import INT, States

# chooser(states, oracle or None, original rows, offsets, live) -> [B] action ids (-1: none)
Chooser = Callable[[States, Optional[Oracle], np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def drive(system: TransitionSystem, st: States, choose: Chooser, *, oracle: Optional[Oracle] = None,
          offsets: Optional[np.ndarray] = None, keep_trees: bool = False, bounded: bool = False,
          compact_below: float = COMPACT_BELOW, observe: Optional[Callable[[States], None]] = None
          ) -> List[Optional[Tree]]:
    """Run ``choose`` until every state is final (or has no valid action).

    ``offsets``: each row's first token among the batch's tokens (features);
    ``keep_trees``: return the output tree of every row (else Nones), in
    the system's terms (``codec.TreeCodec.decode`` brings them back to UD);
    ``bounded``: raise UnexpectedError if a state outlives ``system.max_steps``;
    ``observe``: called with the states after each step's actions are applied.
    (A diagnostic that watches the states wraps ``choose``: ``lab/stacks.py``.)"""
    rows = np.arange(st.B)  # the original row of each state
    offsets = np.zeros(st.B, dtype=INT) if offsets is None else offsets
    bound = np.array([system.max_steps(n) for n in st.n], dtype=INT) if bounded else None
    trees: List[Optional[Tree]] = [None] * st.B
    dead = np.zeros(st.B, dtype=bool)  # no valid action (never expected: a system always has one)
    if debugging() and st.B:
        check(system, st)
    while True:
        done = system.is_final(st) | dead
        if done.all() or (~done).sum() < compact_below * st.B:
            if keep_trees:
                finished = np.flatnonzero(done)
                for r, tree in zip(finished, system.output_trees(st, finished, decode=False)):
                    trees[rows[r]] = tree
            if done.all():
                return trees
            keep = np.flatnonzero(~done)
            st, rows, offsets, dead, done = st.select(keep), rows[keep], offsets[keep], dead[keep], done[keep]
            bound = bound[keep] if bound is not None else None
            oracle = oracle.select(keep) if oracle is not None else None
        actions = choose(st, oracle, rows, offsets, ~done)
        stuck = (actions < 0) & ~done & ~dead
        if stuck.any():  # a system always has a valid move
            unexpected(Errors.E092.format(system=system.name, count=int(stuck.sum()), states=st.B))
            dead |= stuck
        system.apply(st, actions)
        if observe is not None:
            observe(st)
        if bound is not None and (st.steps > bound).any():
            raise UnexpectedError(Errors.E072.format(system=system.name))


# --- the static oracle --------------------------------------------------------------

@dataclass
class OracleRun:
    """What ``oracle_run`` found: per step, (original rows, feature tokens,
    label features, actions, valid moves [rows, the system's moves: N_MOVES, and top-down's PRED],
    ``system.step_record``)
    of the live states (with ``with_features``); the tree each row ends in, as ``prepare_tree``
    gives trees (not decoded); the moves made."""

    steps: List[Tuple[np.ndarray, ...]] = field(default_factory=list)
    trees: List[Tree] = field(default_factory=list)
    moves: Counter = field(default_factory=Counter)


def oracle_run(system: TransitionSystem, trees: Sequence[Tree], with_features: bool = False,
               keep_trees: bool = True, finish: bool = False) -> OracleRun:
    """Run the static oracle over a batch of prepared gold trees (raises
    UnexpectedError if it chooses an invalid move or a state outlives its bound;
    ``finish``: under the single-root rule)."""
    st = system.init_states([len(h) for h, _ in trees], finish=finish)
    oracle = make_oracle(system, st, [system.label_tree(t) for t in trees])
    run = OracleRun()
    names = system.move_names
    counts = np.zeros(len(names), dtype=INT)

    def choose(st: States, oracle: Oracle, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        moves, labels = oracle.static(st)
        actions = system.action_of(moves, labels)
        actions[~live] = -1
        here = np.flatnonzero(live)
        moves_ok = system.valid_moves(st)[here]  # validity does not depend on the label
        bad = here[~moves_ok[np.arange(len(here)), moves[here]]]
        if len(bad):
            raise UnexpectedError(Errors.E073.format(system=system.name, move=names[moves[bad[0]]],
                                                   row=rows[bad[0]]))
        if with_features:
            feats, labs = system.get_features(st)
            run.steps.append((rows[here], feats[here], labs[here], actions[here], moves_ok,
                              system.step_record(st)[here]))
        counts[:] += np.bincount(moves[here], minlength=len(names))
        return actions

    run.trees = drive(system, st, choose, oracle=oracle, keep_trees=keep_trees, bounded=True)
    run.moves = Counter({names[m]: int(c) for m, c in enumerate(counts) if c})
    return run


def oracle_check(codec, trees: Sequence[Tree], batch_size: int = 256) -> Dict:
    """Run the static oracle over gold trees, each in and out through ``codec`` (a
    ``codec.TreeCodec``): how many it reproduces exactly, how many the system cannot cover,
    and the transitions it makes."""
    system = codec.system
    prepared = [codec.encode(codec.transformed(tree)) for tree in trees]
    reproduced = 0
    counts: Counter = Counter()
    for idx in batches([len(h) for h, _ in trees], batch_size):
        run = oracle_run(system, [prepared[i] for i in idx])
        counts.update(run.moves)
        for i, tree in zip(idx, run.trees):
            reproduced += codec.restored(codec.from_system(tree))[0] == (list(trees[i][0]), list(trees[i][1]))
    return {"trees": len(trees), "reproduced": reproduced,
            "not_covered": sum(not system.covers(h, l) for h, l in trees),
            "transitions": dict(sorted(counts.items()))}


# --- the model ----------------------------------------------------------------------

def exploration_run(system: TransitionSystem, st: States, oracle: Oracle, score: Callable, exploration,
                    offsets: np.ndarray, compact_below: float = COMPACT_BELOW, keep_order: bool = False
                    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parse a batch for training with exploration (Goldberg & Nivre 2012's
    error exploration): at each step every live state records its features and
    its targets (``oracle.targets``), then follows the model's best valid
    action with probability ``exploration`` (one for all rows, or an array
    of one per row), else its best-scored target; with ``keep_order``,
    always its best-scored target in the rows ``oracle.kept`` names (swap's
    SWAP, 2-planar's SWITCH and crossing links).
    ``score(features, label features)`` -> [rows, n_actions] scores.

    Returns (feature tokens, label features, targets, valid actions) of
    every state visited, one row each. The random draws are made for the
    original rows, so the run does not depend on when finished rows are
    dropped."""
    B0 = st.B
    exploration = np.broadcast_to(np.asarray(exploration, dtype=np.float64), (B0,))
    ids, labs, targets, valids = [], [], [], []

    def choose(st: States, oracle: Oracle, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        f, l, *more = system.model_inputs(st, offsets)
        scores = score(f, l, *more)
        valid, target = oracle.targets(st)
        ids.append(f[live]), labs.append(l[live]), targets.append(target[live]), valids.append(valid[live])
        predicted = np.where(valid, scores, -np.inf).argmax(axis=1)
        best_target = np.where(target, scores, -np.inf).argmax(axis=1)
        follow = (np.random.random(B0) < exploration)[rows]
        if keep_order:
            follow &= ~oracle.kept(st, target)
        return np.where(live, np.where(follow, predicted, best_target), -1)

    drive(system, st, choose, oracle=oracle, offsets=offsets, compact_below=compact_below)
    return np.concatenate(ids), np.concatenate(labs), np.concatenate(targets), np.concatenate(valids)


def greedy_parse(system: TransitionSystem, score: Callable, lengths: Sequence[int], offsets: np.ndarray,
                 finish: bool = False, tags: Optional[Sequence[Sequence[str]]] = None,
                 move_logp: Optional[List] = None) -> List[Tree]:
    """Parse units of the given lengths (their first tokens at ``offsets``
    among the scorer's tokens) with the best-scored valid action of each
    state (``finish``: under the tree constraint; ``tags``: the words' tags,
    for the systems that read them). ``move_logp``: a list that gets, per
    unit, each word's log-probability of the move that gave it its head
    (``MoveRecorder``; what a beam of 1 records, at a greedy parse's cost)."""
    st = system.init_states(lengths, finish=finish, tags=tags)
    if move_logp is None:
        return drive(system, st, greedy_chooser(system, score), offsets=offsets, keep_trees=True)
    recorder = MoveRecorder(system, score, st)
    trees = drive(system, st, recorder.choose, offsets=offsets, keep_trees=True, observe=recorder.observe)
    move_logp.extend(recorder.word_logp(b, tree[0]) for b, tree in enumerate(trees))
    return trees


class MoveRecorder:
    """The greedy chooser (``greedy_chooser``'s actions) that also records, per state and word, the
    log-probability of the move that gave the word its head under the softmax over the state's
    valid actions, as ``beam.Beam`` records its moves with ``keep_all``; ``observe`` takes the
    step's new arcs. A root no move attached (a system without the root on its stack,
    ``attaching``) gets its probability of staying headless: the product, over the states
    where a valid move would have given it a head, of one less those moves' probability."""

    def __init__(self, system: TransitionSystem, score: Callable, st: States):
        self.system, self.score = system, score
        self.logp = np.zeros((st.B, st.T))
        self.headless = np.zeros((st.B, st.T))  # each word's log-probability of no head so far
        self.step: Optional[Tuple[np.ndarray, ...]] = None

    def choose(self, st: States, oracle: None, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        scores = self.score(*self.system.model_inputs(st, offsets))
        actions = self.system.best_actions(scores, st, live)
        going = np.flatnonzero(actions >= 0)
        valid = self.system.valid_actions(st)[going]
        rules = self.system.ud_label_rules(st)
        if rules is not None:
            valid &= rules[going]
        scores = np.asarray(scores, dtype=np.float64)[going]
        masked = np.where(valid, scores, -np.inf)
        top = masked.max(axis=1, keepdims=True)
        norm = top[:, 0] + np.log(np.exp(masked - top).sum(axis=1))
        self.step = (rows[going], st.heads[going] < 0, scores[np.arange(len(going)), actions[going]] - norm, going)
        if self.system.attaching(st) is not None:
            step = np.zeros((st.B, st.T))
            self.system.staying_headless(st, going, masked, step)
            self.headless[rows] += step
        return actions

    def observe(self, st: States) -> None:
        rows, headless, logp, going = self.step
        r, w = np.nonzero(headless & (st.heads[going] >= 0))
        self.logp[rows[r], w] = logp[r]

    def word_logp(self, b: int, heads: Sequence[int]) -> List[float]:
        """Unit ``b``'s words' log-probabilities of their heads in its tree ``heads`` (1-based):
        a root's of staying headless where no move attached it."""
        n = len(heads)
        out = self.logp[b, 1:n + 1].copy()
        roots = np.flatnonzero(np.asarray(heads, dtype=INT) == 0)
        unattached = roots[out[roots] == 0.0]
        out[unattached] = self.headless[b, unattached + 1]
        return out.tolist()


def greedy_chooser(system: TransitionSystem, score: Callable) -> Chooser:
    """The chooser of a greedy parse: each live state's best-scored valid action."""

    def choose(st: States, oracle: None, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        return system.best_actions(score(*system.model_inputs(st, offsets)), st, live)

    return choose


def beam_parse(system: TransitionSystem, score: Callable, lengths: Sequence[int], offsets: np.ndarray,
               beam_width: int, *, density: float, merge: bool, finish: bool = False,
               tags: Optional[Sequence[Sequence[str]]] = None, finals: Optional[List] = None,
               lost: Optional[List[int]] = None) -> List[Tree]:
    """Parse with beam search (``beam.Beam``: ``beam_width`` states per
    sentence, ``density``, ``merge``; with ``beam_width`` 1 this is
    ``greedy_parse``); ``density`` and ``merge`` have no default here: the
    component passes its settings (the factory's defaults). ``finals``: a list that gets, per sentence, every
    final state of its beam as (total log-probability, tree, per word the
    log-probability of the move that gave it its head), best first.
    ``lost``: a list that gets the sentences that fell out of their beam
    (never expected) and were parsed greedily instead: the caller counts and reports them
    (``codec.TreeCodec.output_trees``, W093)."""
    st = system.init_states(lengths, finish=finish, tags=tags)
    beam = Beam(system, st, offsets, beam_width, density=density, merge=merge, keep_all=finals is not None)
    while not beam.done:
        beam.advance(score)
    fell_out = [k for k, tree in enumerate(beam.trees) if tree is None]
    if fell_out:  # a beam always has a move
        lost_tags = [tags[k] for k in fell_out] if tags is not None else None
        for k, tree in zip(fell_out, greedy_parse(system, score, [lengths[k] for k in fell_out], offsets[fell_out],
                                                  finish, tags=lost_tags)):
            beam.trees[k] = tree
            beam.kbest[k] = [(0.0, tree, [0.0] * len(tree[0]))]
        if lost is not None:
            lost.extend(fell_out)
    if finals is not None:
        finals.extend(beam.kbest)
    return beam.trees


def beam_train_run(system: TransitionSystem, st: States, oracle: Oracle, score: Callable, width: int,
                   offsets: np.ndarray) -> BeamRun:
    """Beam search for training with the global loss and early update
    (``beam.GoldBeam``), over the states ``st`` with their ``oracle``."""
    beam = GoldBeam(system, st, oracle, offsets, width)
    while not beam.done:
        beam.advance(score)
    return beam.result()


