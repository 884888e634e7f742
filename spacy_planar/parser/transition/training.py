"""How ``planar_parser`` learns: gold trees of the units of an Example, the
static oracle's transitions (computed once per unit and cached), the states
visited while exploring, and the loss.

The static oracle's transitions and feature tokens of each unit are cached,
keyed by the words and the gold tree, so the model scores all the
transitions of a batch in one pass; units trained with exploration are
parsed with the current model first (``driver.exploration_run``).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

from spacy_planar.parser.transition.beam import BeamRun
from spacy_planar.parser.transition.catalog import make_oracle
from spacy_planar.parser.shared.codec import TreeCodec
from spacy_planar.parser.transition.settings import ParserSettings
from spacy_planar.parser.shared.gold import Bounds, GoldTrees
from spacy_planar.parser.shared.softmax import softmax
from spacy_planar.parser.shared.units import batches
from spacy_planar.parser.transition.driver import beam_train_run, exploration_run, oracle_run
from spacy_planar.parser.systems import TransitionSystem, Tree
from spacy_planar.parser.systems.state import INT
from spacy_planar.trees.algorithms import is_projective

# the oracle cache's bound, bytes of its arrays: a training set's steps are kept across epochs up to this much
# (a 45,000-sentence set of 270 labels is about 0.7 GB), then the cache is emptied and filled again
CACHE_BYTES = 2 << 30

# feature tokens, label features, targets, valid actions, more model inputs (top-down: its arc scorer's)
Steps = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Tuple[np.ndarray, ...]]


class Trainer(GoldTrees):
    """The training side of one ``PlanarParser``: its oracle cache, and the
    steps a batch of Examples trains on."""

    def __init__(self, settings: ParserSettings):
        super().__init__(settings)  # the root label, the tree transforms, the single-root rule: the component's
        # keyed by the Doc's words and gold trees themselves (not a hash of them: no collision can reuse steps)
        self.cache: Dict[Tuple, List[Tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = {}
        self.projective: Dict[Tuple[int, ...], bool] = {}
        self.cached_bytes = 0

    def clear(self) -> None:
        """Forget the cached transitions (the labels or the system changed)."""
        self.cache.clear()
        self.cached_bytes = 0

    def is_projective(self, heads: Sequence[int]) -> bool:
        """``trees.is_projective``, remembered per gold tree across epochs."""
        key = tuple(heads)
        if key not in self.projective:
            self.projective[key] = is_projective(heads)
        return self.projective[key]

    # --- the static oracle -------------------------------------------------------------
    def oracle_steps(self, codec: TreeCodec, docs: Sequence[Doc],
                     trees: Sequence[List[Tuple[Bounds, Tree]]]) -> List[List]:
        """Per Doc: a list of (start, features, label features, actions,
        valid moves, ``step_record`` rows), one per unit of ``trees`` (its gold trees), from the
        cache or from one batched oracle run."""
        todo: List[Tuple[int, int, Tree, Tuple]] = []
        out: List[List] = []
        for k, (doc, doc_trees) in enumerate(zip(docs, trees)):
            if not doc_trees:
                out.append([])
                continue
            key = (tuple(t.text for t in doc), tuple((u, tuple(h), tuple(d)) for u, (h, d) in doc_trees))
            if key in self.cache:
                out.append(self.cache[key])
                continue
            out.append([])
            for u, tree in doc_trees:
                todo.append((k, u[0], codec.encode(tree), key))
        if todo:
            self._run_oracle(codec.system, todo, out)
        return out

    def _run_oracle(self, system: TransitionSystem, todo: List[Tuple[int, int, Tree, Tuple]], out: List[List]) -> None:
        prepared = [t for _, _, t, _ in todo]
        chunks: List[Tuple[np.ndarray, ...]] = []  # (unit of each row, features, labels, actions, valid, record)
        for idx in batches([len(t[0]) for t in prepared], 256):
            run = oracle_run(system, [prepared[i] for i in idx], with_features=True, keep_trees=False)
            for rows, *arrays in run.steps:
                chunks.append((idx[rows], *arrays))
        unit = np.concatenate([c[0] for c in chunks]) if chunks else np.zeros(0, dtype=INT)
        order = np.argsort(unit, kind="stable")  # by unit, each unit's steps in order
        arrays = [np.concatenate([c[j] for c in chunks])[order] if chunks else None for j in range(1, 6)]
        ends = np.cumsum(np.bincount(unit, minlength=len(todo)))
        for u, (k, start, _, _) in enumerate(todo):
            a, b = (ends[u - 1] if u else 0), ends[u]
            if a == b:
                continue
            f, l, acts, v, rec = (x[a:b] for x in arrays)
            out[k].append((start, f.astype(np.int32), l.astype(np.int32), acts.astype(INT), v.astype(bool),
                           rec.astype(np.int32)))
        added = sum(x.nbytes for k in {k for k, *_ in todo} for unit in out[k] for x in unit[1:])
        if self.cached_bytes + added > CACHE_BYTES:  # bounded (CACHE_BYTES): start again
            self.clear()
        self.cached_bytes += added
        for (k, _, _, key) in todo:
            self.cache[key] = out[k]

    def static_steps(self, codec: TreeCodec, docs: List[Doc], trees: List[List],
                     starts: List[int]) -> Optional[Steps]:
        """The static oracle's states of ``trees`` (per Doc, its units' gold
        trees; ``starts``: each Doc's first row in the batch's feature
        table), the oracle's action the one target of each."""
        ids, labs, actions, valid, records, firsts = [], [], [], [], [], []
        for doc_units, offset in zip(self.oracle_steps(codec, docs, trees), starts):
            for start, f, l, a, v, rec in doc_units:
                ids.append(np.where(f >= 0, f + offset + start, -1))
                labs.append(l)
                actions.append(a)
                valid.append(v)
                records.append(rec)
                firsts.append(np.full(len(a), offset + start, dtype=INT))
        if not ids:
            return None
        targets, valid_actions, more = codec.system.training_arrays(
            np.concatenate(actions), np.concatenate(valid), np.concatenate(records).astype(INT),
            np.concatenate(firsts))
        return np.concatenate(ids), np.concatenate(labs), targets, valid_actions, more

    # --- exploration -------------------------------------------------------------------
    def exploring_steps(self, codec: TreeCodec, score, units: List[List], starts: List[int],
                        keep_order: bool) -> Steps:
        """The same for training with exploration (Goldberg & Nivre 2012):
        ``units`` (per Doc, (unit, probability of exploring) pairs) are parsed
        with the current model (``score``), following its prediction with
        that probability, else the best-scored target action, and every
        state is recorded with its targets (``Oracle.targets``)."""
        st, oracle, offsets = _gold_batch(codec, [[u for u, _ in doc_units] for doc_units in units], starts)
        follow = np.asarray([chance for doc_units in units for _, chance in doc_units])
        return exploration_run(codec.system, st, oracle, score, follow, offsets, keep_order=keep_order) + ((),)

    # --- the beam's global loss ---------------------------------------------------------
    def beam_run(self, codec: TreeCodec, score, trees: List[List], starts: List[int],
                 width: int) -> BeamRun:
        """The units of ``trees`` (per Doc, its units' gold trees) parsed with
        a beam of ``width`` beside their gold derivations, for the global
        loss (``driver.beam_train_run``)."""
        st, oracle, offsets = _gold_batch(codec, trees, starts)
        return beam_train_run(codec.system, st, oracle, score, width, offsets)


def _gold_batch(codec: TreeCodec, trees: List[List], starts: List[int]):
    """The initial states (under the single-root rule where the settings
    have it), the oracle and the first tokens of the units of ``trees`` (per Doc, its
    units' (span, gold tree); ``starts``: each Doc's first row in the batch),
    for the runs that parse them with the model."""
    gold, offsets = [], []
    for doc_units, offset in zip(trees, starts):
        for (start, _), tree in doc_units:
            gold.append(codec.labelled(tree))
            offsets.append(offset + start)
    st = codec.system.init_states([len(h) for h, _ in gold], finish=codec.settings.single_root)
    return st, make_oracle(codec.system, st, gold), np.asarray(offsets, dtype=INT)


def beam_loss(ops, scores, run: BeamRun):
    """The gradient of the global loss with respect to the scores of the
    states ``run`` names (their log-probabilities' gradient through the
    softmax over valid actions): weights - mass * softmax."""
    n = scores.shape[1]
    valid = np.zeros((len(run.valid), n), dtype=bool)
    weights = np.zeros((len(run.valid), n), dtype="float32")
    k = min(n, run.valid.shape[1])
    valid[:, :k], weights[:, :k] = run.valid[:, :k], run.weights[:, :k]
    probs = softmax(ops.xp, scores, ops.asarray(valid))
    return ops.asarray(weights) - ops.asarray(run.mass.astype("float32"))[:, None] * probs


def loss_towards(ops, scores, targets: np.ndarray, valid: np.ndarray):
    """Softmax over the valid actions; cross-entropy with the set of target
    actions (the probability mass on any of them). Returns (d_scores, loss)."""
    targets = ops.asarray(targets)
    probs = softmax(ops.xp, scores, ops.asarray(valid))
    on_target = (probs * targets).sum(axis=1, keepdims=True)
    loss = float(-ops.xp.log(on_target + 1e-12).sum())
    d_scores = probs - probs * targets / (on_target + 1e-12)
    return d_scores, loss
