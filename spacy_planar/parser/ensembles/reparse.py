"""Parsers of different systems as one (``parse --ensemble`` over a transition system and the
biaffine, say; a joint pipeline's ``biaffine_parser`` with ``reparse_with``): reparsing (Sagae &
Lavie 2006). Each member gives every word of a sentence a distribution over its heads: the
biaffine its arcs' probabilities, a transition parser its tree (all the mass on the head it
chose; with its beam's k best parses, their probabilities; ``soft``: the probability of the move
that attached the word, the rest of its mass on no head); their mean is decoded by the
graph-based parser's own decoder
(``trees.mst``: the spanning tree with one root of the most probable heads under the mean),
and each word's label is the mean of the members' label distributions at the head chosen (the
biaffine's label probabilities there; a transition parser's label where it chose that head). Each
word's probability of its head and label is that mean's (``Token._.head_prob``).
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

from spacy_planar.io.conllu import MOVE_LOGP_KEY, PARSES_KEY
from spacy_planar.io.doc_trees import span_tree, ud_labels
from spacy_planar.parser.graph import scoring as graph
from spacy_planar.parser.shared.softmax import softmax
from spacy_planar.parser.shared.units import unit_words, with_whitespace
from spacy_planar.trees.mst import best_trees

Unit = Tuple[int, int, int]  # (Doc, start, end)


class TreeVotes:
    """A transition parser's trees as distributions: where it kept its beam's k best parses
    (``n_best`` > 1: ``Doc._.parses``), each word's mass on each head and label is the
    probability of the parses that give it them; else all of it on the head and label it chose,
    or with ``soft`` and the moves' log-probabilities kept (``head_probs``: its parse of one
    tree), the probability of the move that attached the word (the rest on no head)."""

    def __init__(self, docs: Sequence[Doc], found: Sequence[Unit], soft: bool = False):
        self.parses = []  # per unit: (probability, heads, UD labels) of each parse
        self.weights = []  # per unit: each word's weight on its heads (1.0: the parses' mass alone)
        for k, s, e in found:
            kept = [alts for start, end, alts in docs[k].user_data.get(PARSES_KEY) or [] if (start, end) == (s, e)]
            moves = docs[k].user_data.get(MOVE_LOGP_KEY) if soft else None
            if kept and kept[0]:
                total = sum(p["prob"] for p in kept[0])
                self.parses.append([(p["prob"] / total, np.asarray(p["heads"]), ud_labels(p["heads"], p["labels"]))
                                    for p in kept[0]])
            else:
                heads, labels = span_tree(docs[k], s, e)
                self.parses.append([(1.0, np.asarray(heads), ud_labels(heads, labels))])
            chosen = None if moves is None or (kept and kept[0]) else moves[s:e]
            self.weights.append(np.exp(np.asarray(chosen, dtype=float)) if chosen is not None and None not in chosen
                                else np.ones(e - s))

    def tree(self, u: int) -> Tuple[List[int], List[str]]:
        """The parser's own tree of unit ``u`` (its best parse): heads 1-based, UD labels."""
        _, heads, labels = self.parses[u][0]
        return heads.tolist(), list(labels)

    def arcs(self, u: int) -> np.ndarray:
        n = len(self.parses[u][0][1])
        out = np.zeros((n, n + 1))
        for prob, heads, _ in self.parses[u]:
            out[np.arange(n), heads] += prob * self.weights[u]
        return out

    def labels(self, heads: Sequence[Sequence[int]], index: Dict[str, int]) -> List[np.ndarray]:
        """Per unit (words, labels of ``index``): each word's mass on each label at its head in
        ``heads`` (the unit's), from the parses that give it that head."""
        out = []
        for u, unit_heads in enumerate(heads):
            dist = np.zeros((len(unit_heads), len(index)))
            for prob, mine, labels in self.parses[u]:
                ids = np.asarray([index.get(label, -1) for label in labels], dtype=np.int64)
                agree = (np.asarray(unit_heads) == mine) & (ids >= 0)
                dist[np.flatnonzero(agree), ids[agree]] += prob * self.weights[u][agree]
            out.append(dist)
        return out


class GraphVotes:
    """A biaffine parser's arc probabilities over each unit's words (whitespace attached by rule,
    as its own parse attaches it), and its label probabilities at any head."""

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

    def trees(self) -> List[Tuple[List[int], List[str]]]:
        """The parser's own tree of each unit (its decoder, ``best_tree``, over its arcs alone;
        whitespace attached by rule): heads 1-based, UD labels (each arc's most probable)."""
        s = self.parser.settings
        heads = dict(zip(self.logp, best_trees(list(self.logp.values()), s.single_root)))
        dists = self._unit_labels([heads.get(u, []) for u in range(len(self.sizes))], words_only=True)
        out = []
        for u, n in enumerate(self.sizes):
            tree = ([], [])
            if u in heads:
                best = dists[u].argmax(axis=1)
                tree = (heads[u], [s.root_label if h == 0 else s.labels[c] for h, c in zip(heads[u], best)])
            out.append(with_whitespace(tree, self.words[u], n, s.extra_root_label, s.root_label))
        return out

    def arcs(self, u: int) -> np.ndarray:
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

    def labels(self, heads: Sequence[Sequence[int]], index: Dict[str, int]) -> List[np.ndarray]:
        """Per unit (words, labels of ``index``): the label probabilities of each word at its head
        in ``heads`` (the unit's tokens'; none where the word or its head is whitespace; the root's
        label on a root), every unit's arcs scored at once."""
        s = self.parser.settings
        mine = self._unit_labels(heads)
        cols = np.asarray([index.get(label, -1) for label in s.labels], dtype=np.int64)
        out = []
        for u, dist in enumerate(mine):
            full = np.zeros((len(heads[u]), len(index)))
            full[:, cols[cols >= 0]] = dist[:, cols >= 0]
            w = self.words[u]
            if s.root_label in index:
                full[w[np.asarray(heads[u], dtype=np.int64)[w] == 0], index[s.root_label]] = 1.0
            out.append(full)
        return out

    def _unit_labels(self, heads: Sequence[Sequence[int]], words_only: bool = False) -> List[np.ndarray]:
        """Per unit (its tokens, or ``words_only`` its words, x the parser's labels): the label
        probabilities of each word at its head in ``heads`` (positions among the tokens, or among
        the words), zero where none is scored (a root, whitespace)."""
        deps, heads_at, where = [], [], []
        for u, unit_heads in enumerate(heads):
            w = self.words[u]
            if not len(w):
                continue
            n = len(w) if words_only else self.sizes[u]
            row = np.full(n + 1, -1)  # each position's row of the scorer (1-based; -1: whitespace)
            row[(np.arange(len(w)) if words_only else w) + 1] = self.rows[u] + np.arange(len(w))
            h = np.asarray(unit_heads, dtype=np.int64)
            dep = np.arange(len(w)) if words_only else w
            keep = dep[(h[dep] > 0) & (row[np.maximum(h[dep], 0)] >= 0)]
            deps.append(row[keep + 1]), heads_at.append(row[h[keep]]), where.append((u, keep))
        out = [np.zeros((len(w) if words_only else n, len(self.parser.settings.labels)))
               for w, n in zip(self.words, self.sizes)]
        if where:
            probs = self._arc_label_probs(np.concatenate(deps), np.concatenate(heads_at))
            k = 0
            for u, keep in where:
                out[u][keep] = probs[k:k + len(keep)]
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


def reparse(votes: Sequence, found: Sequence[Unit], labels: Sequence[str], root_label: str
            ) -> List[Tuple[List[int], List[str], np.ndarray]]:
    """Each unit of ``found``: its tree by the members' mean arc distribution (``votes``, one
    per member: ``TreeVotes`` or ``GraphVotes`` over those units), each word's label by their
    mean label distribution at its head, and each word's probability of both."""
    index = {label: i for i, label in enumerate(labels)}
    arcs = [sum(v.arcs(u) for v in votes) / len(votes) for u in range(len(found))]
    heads = best_trees([np.log(np.maximum(a, 1e-12)) for a in arcs])  # one biaffine member: its own decoding
    dists = [sum(d) / len(votes) for d in zip(*(v.labels(heads, index) for v in votes))]
    out = []
    for unit_arcs, unit_heads, dist in zip(arcs, heads, dists):
        chosen = dist.argmax(axis=1)
        words = np.arange(len(unit_heads))
        names = [root_label if h == 0 else labels[c] for h, c in zip(unit_heads, chosen)]
        probs = unit_arcs[words, unit_heads] * np.where(np.asarray(unit_heads) == 0, 1.0, dist[words, chosen])
        out.append((unit_heads, names, probs))
    return out
