"""Parsers of different systems as one (``parse --ensemble`` over a transition system and the
biaffine, say): reparsing (Sagae & Lavie 2006). Each member gives every word of a sentence a
distribution over its heads: the biaffine its arcs' probabilities, a transition parser its tree
(all the mass on the head it chose); their mean is decoded by the graph-based parser's own decoder
(``trees.mst``: the spanning tree with one root of the most probable heads under the mean),
and each word's label is the mean of the members' label distributions at the head chosen (the
biaffine's label probabilities there; a transition parser's label where it chose that head). Each
word's probability of its head and label is that mean's (``Token._.head_prob``).
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

from spacy_planar.io.conllu import PARSES_KEY
from spacy_planar.io.doc_trees import span_tree, ud_labels
from spacy_planar.parser.graph import scoring as graph
from spacy_planar.parser.shared.units import unit_words, with_whitespace
from spacy_planar.trees.mst import best_tree

Unit = Tuple[int, int, int]  # (Doc, start, end)


class TreeVotes:
    """A transition parser's trees as distributions: where it kept its beam's k best parses
    (``n_best`` > 1: ``Doc._.parses``), each word's mass on each head and label is the
    probability of the parses that give it them; else all of it on the head and label it chose."""

    def __init__(self, docs: Sequence[Doc], found: Sequence[Unit]):
        self.parses = []
        for k, s, e in found:
            kept = [alts for start, end, alts in docs[k].user_data.get(PARSES_KEY) or [] if (start, end) == (s, e)]
            if kept and kept[0]:
                total = sum(p["prob"] for p in kept[0])
                self.parses.append([(p["prob"] / total, np.asarray(p["heads"]), ud_labels(p["heads"], p["labels"]))
                                    for p in kept[0]])
            else:
                heads, labels = span_tree(docs[k], s, e)
                self.parses.append([(1.0, np.asarray(heads), ud_labels(heads, labels))])

    def arcs(self, u: int) -> np.ndarray:
        n = len(self.parses[u][0][1])
        out = np.zeros((n, n + 1))
        for prob, heads, _ in self.parses[u]:
            out[np.arange(n), heads] += prob
        return out

    def labels(self, u: int, heads: Sequence[int], index: Dict[str, int]) -> np.ndarray:
        n = len(self.parses[u][0][1])
        out = np.zeros((n, len(index)))
        for prob, mine, labels in self.parses[u]:
            ids = np.asarray([index.get(label, -1) for label in labels], dtype=np.int64)
            agree = (np.asarray(heads) == mine) & (ids >= 0)
            out[np.flatnonzero(agree), ids[agree]] += prob
        return out


class GraphVotes:
    """A biaffine parser's arc probabilities over each unit's words (whitespace attached by rule,
    as its own parse attaches it), and its label probabilities at any head."""

    def __init__(self, parser, docs: Sequence[Doc], found: Sequence[Unit]):
        self.parser = parser
        scorer = parser.model.predict(list(docs))
        self.words, self.rows, kept = unit_words(list(docs), list(found))
        self.scorer = scorer.restricted(kept) if kept is not None else scorer
        self.sizes = [e - s for _, s, e in found]
        read = [u for u, w in enumerate(self.words) if len(w)]
        self.logp = dict(zip(read, _log_probs(self.scorer, [self.rows[u] for u in read],
                                              [len(self.words[u]) for u in read])))

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

    def labels(self, u: int, heads: Sequence[int], index: Dict[str, int]) -> np.ndarray:
        """(words, labels of ``index``): the label probabilities of each word at its head in
        ``heads`` (none where the word or its head is whitespace; the root's label on a root)."""
        n, w = self.sizes[u], self.words[u]
        out = np.zeros((n, len(index)))
        s = self.parser.settings
        heads = np.asarray(heads)
        row = np.full(n + 1, -1)  # each token's row of the scorer (1-based positions; -1: whitespace)
        row[w + 1] = self.rows[u] + np.arange(len(w))
        at_root = w[heads[w] == 0]
        if s.root_label in index:
            out[at_root, index[s.root_label]] = 1.0
        scored = w[(heads[w] > 0) & (row[np.maximum(heads[w], 0)] >= 0)]
        if len(scored):
            S, _ = self.scorer.labels(row[scored + 1], row[heads[scored]])
            xp = self.scorer.ops.xp
            probs = np.exp(self.scorer.ops.to_numpy(graph.log_softmax(xp, S, xp.ones(S.shape, dtype=bool))))
            cols = np.asarray([index.get(label, -1) for label in s.labels], dtype=np.int64)
            out[np.ix_(scored, cols[cols >= 0])] = probs[:, cols >= 0]
        return out


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
    out = []
    for u in range(len(found)):
        arcs = sum(v.arcs(u) for v in votes) / len(votes)
        heads = best_tree(np.log(np.maximum(arcs, 1e-12)))  # one biaffine member: its own decoding
        dist = sum(v.labels(u, heads, index) for v in votes) / len(votes)
        chosen = dist.argmax(axis=1)
        words = np.arange(len(heads))
        names = [root_label if h == 0 else labels[c] for h, c in zip(heads, chosen)]
        probs = arcs[words, heads] * np.where(np.asarray(heads) == 0, 1.0, dist[words, chosen])
        out.append((heads, names, probs))
    return out
