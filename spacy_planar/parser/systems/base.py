"""What every transition system has.

A system describes its configuration, its transitions (``valid_moves`` and
``apply``), its terminal test and the trees it derives (``prepare_tree`` /
``decode_tree``) over the batched :class:`States`; its oracles are in
``oracles/`` and the loops that run it in ``driver.py``. What a system must
and may provide, and the shapes of its answers: ``contract.py``.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.defaults import ROOT_LABEL
from spacy_planar.errors import Errors, UserError
from spacy_planar.parser.systems.state import (
    FEATURES_1STACK,
    LABEL_FEATURES,
    LEFT,
    MOVE_NAMES,
    RIGHT,
    ActionSpace,
    ActionTable,
    FeaturePlan,
    States,
    _core,
)
from spacy_planar.trees.algorithms import Tree
from spacy_planar.trees.pseudoproj import check_encoding, deprojectivize, is_decorated, projectivize


class TransitionSystem:
    """Base class. Subclasses set ``name``, ``moves`` and implement
    ``valid_moves``, ``transitions`` and ``max_steps`` (``contract.py``)."""

    name = "base"
    moves: Tuple[int, ...] = ()
    n_stacks = 1
    root_on_stack = False
    features: Tuple[str, ...] = FEATURES_1STACK
    label_features: Tuple[str, ...] = LABEL_FEATURES
    word_move: Optional[int] = None  # a move that takes a word (``ActionSpace``): top-down's PRED
    move_names: Tuple[str, ...] = MOVE_NAMES  # what the oracle's counts call each move
    dynamic_oracle = True  # whether its oracle has costs (training with exploration)

    reads_tags = False  # whether its states take the words' tags (top-down's FIRST lookahead)

    def __init__(self, labels: Sequence[str], root_label: str = ROOT_LABEL,
                 features: Optional[Sequence[str]] = None, label_features: Optional[Sequence[str]] = None):
        """``features`` / ``label_features``: the feature templates (default:
        the system's own), as a trained model stores them."""
        if features:
            self.features = tuple(features)
        if label_features is not None and features:
            self.label_features = tuple(label_features)
        self.plan = FeaturePlan(self.features, self.label_features)
        labels = list(labels)
        if root_label not in labels:
            labels.append(root_label)
        self.table = ActionTable(self.moves, labels)
        self.actions = ActionSpace(self.table, self.word_move)
        self.labels = self.table.labels
        self.label_ids = {l: i for i, l in enumerate(self.labels)}
        self.root_id = self.label_ids[root_label]  # the root's label, held once: by its id in the table

    @property
    def root_label(self) -> str:
        return self.labels[self.root_id]

    def attaching(self, st: States) -> Optional[Dict[int, np.ndarray]]:
        """Per labelled move, the word it would give a head in each state (-1: none): where no
        move attaches the root (no root on the stack: the words left headless are the roots), what
        ``driver.MoveRecorder`` needs for a root's probability of staying headless. Every move
        of such a system links s0 and b0 (arc-eager, planar, 2-planar on its active stack):
        LEFT-ARC gives s0 its head, RIGHT-ARC b0. None where a move attaches the root too."""
        if self.root_on_stack:
            return None
        return {LEFT: st.s(0), RIGHT: st.b(0)}

    def staying_headless(self, st: States, going: np.ndarray, masked: np.ndarray, out: np.ndarray) -> None:
        """Add to ``out`` (rows of ``st`` x positions) each headless word's log-probability that this
        step gives it no head: log(1 - p), p the probability of the valid moves that would
        (``attaching``; ``masked``: the rows ``going``'s scores, -inf where not valid, softmax over
        them). Summed over a parse, a root's probability of staying headless (``driver.MoveRecorder``,
        ``beam.Beam`` with ``keep_all``); nothing where a move attaches the root too."""
        attaching = self.attaching(st)
        if attaching is None or not len(going):
            return
        masked = np.asarray(masked, dtype=np.float64)
        probs = np.exp(masked - masked.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        table = self.actions.table
        move_of = np.concatenate([table.move_of, np.full(probs.shape[1] - len(table), -1)])
        for move, words in attaching.items():
            word = words[going]
            mass = probs[:, move_of == move].sum(axis=1)
            open_ = (word >= 0) & (st.at(st.heads, words)[going] < 0)
            np.add.at(out, (going[open_], word[open_]), np.log(np.clip(1.0 - mass[open_], 1e-12, 1.0)))

    # --- to be described by each system ------------------------------------------
    def valid_moves(self, st: States) -> np.ndarray:
        """[B, M] boolean: which moves are allowed in each state (M: the
        core's six moves; top-down's seven with PRED)."""
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

    @staticmethod
    def max_steps(n: int) -> int:
        raise NotImplementedError

    def terminal(self, st: States) -> np.ndarray:
        """The terminal test of the system (default: the buffer is empty)."""
        return st.bp == 0

    def is_final(self, st: States) -> np.ndarray:
        """``terminal``, memoised until the states change."""
        return st.memoised(("final", 0), lambda: self.terminal(st))

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        """The tree the oracle derives from a gold tree (identity by default;
        arc-eager projectivizes, planar drops the links that do not fit)."""
        return list(heads), list(labels)

    def covers(self, heads: Sequence[int], labels: Sequence[str]) -> bool:
        """Whether the system can derive this gold tree exactly."""
        return True

    def extra_roots(self, heads: Sequence[int]) -> int:
        """The gold roots of a tree that ``prepare_tree`` makes dependents
        (the systems that build one root: top-down); counted by training
        (W125). None by default: the others derive every root."""
        return 0

    def decode_tree(self, heads: List[int], labels: List[str]) -> Tree:
        """The parser's tree in the treebank's terms (arc-eager deprojectivizes)."""
        return heads, labels

    # --- shared -------------------------------------------------------------
    def init_states(self, lengths: Sequence[int], finish: bool = False,
                    tags: Optional[Sequence[Sequence[str]]] = None) -> States:
        """Initial configurations; ``finish``: parse under the tree constraint
        (one root per sentence) where the system has one (the planar systems);
        ``tags``: the words' tags, for a system that ``wants_tags`` (ignored
        by the others)."""
        return States(lengths, n_stacks=self.n_stacks, root_on_stack=self.root_on_stack, finish=finish)

    def wants_tags(self) -> bool:
        """Whether ``init_states`` reads the words' tags (top-down with its
        FIRST lookahead); the parse then passes the UPOS an earlier
        component set."""
        return False

    def valid_actions(self, st: States) -> np.ndarray:
        """[B, n_actions] boolean mask, all False for final states."""
        valid = self.valid_moves(st) & ~self.is_final(st)[:, None]
        return valid[:, self.table.move_of]

    def action_of(self, moves: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Action ids of (move, label id) pairs, as the oracles give them
        (for the word move, the "label" is the word)."""
        return self.actions.action(moves, labels)

    def ud_label_rules(self, st: States) -> Optional[np.ndarray]:
        """[B, n_actions], False where an action would give its arc a label
        that UD's rules rule out for that arc, or None where the system needs
        no such rule (its moves fix each arc's direction and the root's
        label). Parsing, not training, chooses among the others."""
        return None

    def best_actions(self, scores: np.ndarray, st: States, live: np.ndarray) -> np.ndarray:
        """The best-scored valid action of each live row (-1 elsewhere): one C
        pass over the scores and the valid moves (and ``ud_label_rules``)."""
        rules = self.ud_label_rules(st)
        if rules is not None:
            scores = np.where(rules, scores, np.float32(-1e30))
        return _core.best_actions(np.ascontiguousarray(scores, dtype="float32"),
                                  self.valid_moves(st).view(np.uint8), self.table.move_of, (~live).view(np.uint8))

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
        return self.plan.gather(st, offsets)

    # --- what the model scores --------------------------------------------------------
    @property
    def n_scored(self) -> int:
        """Scores the model gives a state (``ActionSpace.n_scored``)."""
        return self.actions.n_scored

    def model_inputs(self, st: States, offsets: Optional[np.ndarray] = None) -> Tuple[np.ndarray, ...]:
        """What the model scores the states from: ``get_features``' pair
        (top-down adds the inputs of its arc scorer)."""
        return self.get_features(st, offsets)

    def step_record(self, st: States) -> np.ndarray:
        """[B, E] integers kept with each static-oracle step for training
        beside the valid moves (none here: E = 0)."""
        return np.zeros((st.B, 0), dtype=np.int64)

    def training_arrays(self, actions: np.ndarray, valid_moves: np.ndarray, records: np.ndarray,
                        offsets: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray, Tuple[np.ndarray, ...]]:
        """The static oracle's steps (actions, valid moves [n, 7], ``step_record``
        rows, each step's first token in the batch) as ([n, n_actions] targets,
        the oracle's action alone; [n, n_actions] valid actions; model inputs
        beyond the features (none here))."""
        targets = np.zeros((len(actions), len(self.table)), dtype=bool)
        targets[np.arange(len(actions)), actions] = True
        return targets, valid_moves[:, self.table.move_of], ()

    def limit_candidates(self, cand: np.ndarray) -> np.ndarray:
        """Beam search: the candidates [states, actions] (-inf: none) a state
        may put forward (all here; top-down caps its predictions)."""
        return cand

    def label_tree(self, tree: Tree) -> Tuple[List[int], List[int]]:
        """A prepared gold tree with label ids; a label the system was not
        built with (not seen at ``initialize``) is an error (E118), never
        trained as another."""
        heads, labels = tree
        try:
            return list(heads), [self.label_ids[l] for l in labels]
        except KeyError as e:
            raise UserError(Errors.E118.format(system=self.name, label=e.args[0], n=len(self.labels))) from None

    def output_trees(self, st: States, rows: Optional[Sequence[int]] = None, decode: bool = True) -> List[Tree]:
        """Final trees (of ``rows``, default all) with string labels
        (headless words are roots), decoded into the treebank's terms unless
        ``decode`` is False (then as ``prepare_tree`` gives them)."""
        out = []
        for heads, labels in st.trees(self.root_id, rows):
            tree = (heads, [self.labels[l] for l in labels])
            out.append(self.decode_tree(*tree) if decode else tree)
        return out



class PseudoProjective(TransitionSystem):
    """A projective system that parses non-projective treebanks through the
    pseudo-projective encodings (Nivre & Nilsson 2005): it trains on trees
    projectivized with ``encoding`` and decodes its output with
    ``deprojectivize`` (arc-eager, top-down)."""

    def __init__(self, labels: Sequence[str], root_label: str = ROOT_LABEL, *, encoding: str, **built):
        self.encoding = check_encoding(encoding)
        super().__init__(labels, root_label, **built)
        self.decorated = frozenset(label for label in self.labels if is_decorated(label))

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        p = projectivize(heads, labels, self.encoding)
        return p.heads, p.labels

    def decode_tree(self, heads: List[int], labels: List[str]) -> Tree:
        if self.decorated.isdisjoint(labels):
            return heads, labels
        return deprojectivize(heads, labels, self.encoding)

    def covers(self, heads: Sequence[int], labels: Sequence[str]) -> bool:
        p = projectivize(heads, labels, self.encoding)
        return deprojectivize(p.heads, p.labels, self.encoding) == (list(heads), list(labels))
