"""A graph-based parser's arcs as a vote (Sagae & Lavie 2006, reparsing): each unit's arc
probabilities over its tokens and its label probabilities at any head, from one pass of the
model over a batch (``ArcVotes``), and its own trees decoded from the same probabilities. The
decider of a joint pipeline (``ensembles/decider.py``) and ``parse --ensemble``
(``ensembles/members.py``) read them; the biaffine parser hands them over
(``shared/handover.py``)."""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

from spacy_planar.parser.graph import scoring as graph
from spacy_planar.parser.shared.softmax import softmax
from spacy_planar.parser.shared.units import Unit, unit_words, with_whitespace


class ArcVotes:
    """A biaffine parser's arc probabilities over each unit of ``found`` (whitespace attached by
    rule, as its own parse attaches it), and its label probabilities at any head."""

    def __init__(self, parser, docs: Sequence[Doc], found: Sequence[Unit], scorer=None):
        self.parser = parser
        scorer = parser.model.predict(list(docs)) if scorer is None else scorer
        self.words, self.rows, kept = unit_words(list(docs), list(found))
        self.scorer = scorer.restricted(kept) if kept is not None else scorer
        self.sizes = [e - s for _, s, e in found]
        read = [u for u, w in enumerate(self.words) if len(w)]
        self.logp = dict(zip(read, _log_probs(self.scorer, [self.rows[u] for u in read],
                                              [len(self.words[u]) for u in read])))
        self._label_rows: Dict[int, int] = {}  # an arc's (dependent row x rows + head row) -> its row of probs
        self._label_probs: List[np.ndarray] = []

    def trees(self) -> List[Tuple[List[int], List[str], np.ndarray]]:
        """The parser's own tree of each unit (its decoder, ``scoring.DECODERS``, over its arcs
        alone; whitespace attached by rule): heads 1-based, UD labels (each arc's most probable),
        and each token's probability of its head and label (1.0 on whitespace)."""
        s = self.parser.settings
        decode = graph.DECODERS[s.decoder]
        heads = dict(zip(self.logp, decode(list(self.logp.values()), s.single_root)))
        dists = self._unit_labels([heads.get(u, []) for u in range(len(self.sizes))], words_only=True)
        out = []
        for u, n in enumerate(self.sizes):
            tree, probs = ([], []), np.ones(n)
            if u in heads:
                h = np.asarray(heads[u], dtype=np.int64)
                best = dists[u].argmax(axis=1)
                tree = (heads[u], [s.root_label if head == 0 else s.labels[c] for head, c in zip(heads[u], best)])
                word_probs = np.exp(self.logp[u][np.arange(len(h)), h])
                word_probs[h > 0] *= dists[u][np.flatnonzero(h > 0), best[h > 0]]
                probs[self.words[u]] = word_probs
            out.append((*with_whitespace(tree, self.words[u], n, s.extra_root_label, s.root_label), probs))
        return out

    def arcs(self, u: int) -> np.ndarray:
        """Unit ``u``'s (tokens, tokens + 1) head probabilities (column 0: the root)."""
        n, w = self.sizes[u], self.words[u]
        out = np.zeros((n, n + 1))
        if len(w):
            cols = np.concatenate([[0], w + 1])
            out[np.ix_(w, cols)] = np.exp(self.logp[u])
        spaces = np.setdiff1d(np.arange(n), w)
        if len(spaces):  # whitespace: the rule's head (``parsing.with_whitespace``)
            rule = with_whitespace(([0] * len(w), [""] * len(w)), w, n, "", "")[0]
            out[spaces, np.asarray(rule)[spaces]] = 1.0
        return out

    def labels(self, units: Sequence[int], heads: Sequence[Sequence[int]], index: Dict[str, int]) -> List[np.ndarray]:
        """Per unit of ``units`` (tokens, labels of ``index``): the label probabilities of each word
        at its head in ``heads`` (the unit's tokens'; none where the word or its head is
        whitespace; the root's label on a root), every arc asked for scored at once."""
        s = self.parser.settings
        mine = self._unit_labels(heads, units=units)
        cols = np.asarray([index.get(label, -1) for label in s.labels], dtype=np.int64)
        out = []
        for u, unit_heads, dist in zip(units, heads, mine):
            full = np.zeros((len(unit_heads), len(index)))
            full[:, cols[cols >= 0]] = dist[:, cols >= 0]
            w = self.words[u]
            if s.root_label in index:
                full[w[np.asarray(unit_heads, dtype=np.int64)[w] == 0], index[s.root_label]] = 1.0
            out.append(full)
        return out

    def _unit_labels(self, heads: Sequence[Sequence[int]], words_only: bool = False,
                     units: Sequence[int] = None) -> List[np.ndarray]:
        """Per unit (of ``units``, default all; its tokens, or ``words_only`` its words, x the
        parser's labels): the label probabilities of each word at its head in ``heads``
        (positions among the tokens, or among the words), zero where none is scored (a root,
        whitespace)."""
        units = range(len(heads)) if units is None else units
        deps, heads_at, where = [], [], []
        for i, (u, unit_heads) in enumerate(zip(units, heads)):
            w = self.words[u]
            if not len(w):
                continue
            n = len(w) if words_only else self.sizes[u]
            row = np.full(n + 1, -1)  # each position's row of the scorer (1-based; -1: whitespace)
            row[(np.arange(len(w)) if words_only else w) + 1] = self.rows[u] + np.arange(len(w))
            h = np.asarray(unit_heads, dtype=np.int64)
            dep = np.arange(len(w)) if words_only else w
            keep = dep[(h[dep] > 0) & (row[np.maximum(h[dep], 0)] >= 0)]
            deps.append(row[keep + 1]), heads_at.append(row[h[keep]]), where.append((i, keep))
        n_labels = len(self.parser.settings.labels)
        out = [np.zeros((len(self.words[u]) if words_only else self.sizes[u], n_labels)) for u in units]
        if where:
            probs = self._arc_label_probs(np.concatenate(deps), np.concatenate(heads_at))
            k = 0
            for i, keep in where:
                out[i][keep] = probs[k:k + len(keep)]
                k += len(keep)
        return out

    def _arc_label_probs(self, deps: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """(arcs, labels): each arc's label probabilities (rows of the scorer), each distinct
        arc scored once however often it is asked for (the decided tree's, then the own tree's)."""
        n = self.scorer.Z.shape[0]
        keys = deps.astype(np.int64) * n + heads
        new = np.unique(np.asarray([k for k in keys.tolist() if k not in self._label_rows], dtype=np.int64))
        if len(new):
            S, _ = self.scorer.labels(new // n, new % n)
            probs = self.scorer.ops.to_numpy(softmax(self.scorer.ops.xp, S))
            start = sum(len(p) for p in self._label_probs)
            self._label_rows.update(zip(new.tolist(), range(start, start + len(new))))
            self._label_probs.append(probs)
        table = np.concatenate(self._label_probs) if self._label_probs else np.zeros((0, 0))
        return table[[self._label_rows[k] for k in keys.tolist()]]


def _log_probs(scorer, starts: List[int], lengths: List[int]) -> List[np.ndarray]:
    """Each sentence's (n, n + 1) arc log-probabilities, in the order given."""
    out: List = [None] * len(starts)
    for idx in graph.batches(lengths, graph.SENTENCES_PER_BATCH):
        logp = graph.arc_log_probs(scorer, [starts[i] for i in idx], [lengths[i] for i in idx])
        for b, i in enumerate(idx):
            out[i] = logp[b, :lengths[i], :lengths[i] + 1]
    return out
