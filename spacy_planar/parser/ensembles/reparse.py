"""Parsers of different systems as one (``parse --ensemble`` over a transition system and the
biaffine, say; a joint pipeline's ``parse_decider``, ``decider.py``): reparsing (Sagae & Lavie
2006). Each member gives every word of a sentence a distribution over its heads: the
biaffine its arcs' probabilities, a transition parser its tree (all the mass on the head it
chose; with its beam's k best parses, their probabilities; with its moves' probabilities, the
probability of the move that attached the word, the rest of its mass on no head); their mean,
weighted, is decoded with one root (``trees.mst``'s spanning tree of the most probable heads
under the mean by default; Eisner's projective tree where asked for),
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
from spacy_planar.parser.graph.votes import ArcVotes
from spacy_planar.parser.shared.handover import TreeParse

Unit = Tuple[int, int, int]  # (Doc, start, end)


class TreeVotes:
    """A transition parser's parses of some units (``TreeParse``, one a unit) as distributions:
    where it kept its beam's k best parses, each word's mass on each head and label is the
    probability of the parses that give it them; else all of it on the head and label it chose,
    or where it kept its moves' probabilities (``move_probs``), the probability of the move that
    attached the word (the rest on no head). A repaired tree (``TreeParse.repaired``) does not
    vote (``voting``)."""

    def __init__(self, parses: Sequence[TreeParse]):
        self.parses = []  # per unit: (probability, heads, UD labels) of each parse
        self.weights = []  # per unit: each word's weight on its heads (1.0: the parses' mass alone)
        self.voting = [not p.repaired for p in parses]
        for p in parses:
            if p.parses:
                total = sum(prob for prob, _, _ in p.parses)
                self.parses.append([(prob / total, np.asarray(h), ud_labels(h, labels))
                                    for prob, h, labels in p.parses])
            else:
                self.parses.append([(1.0, np.asarray(p.heads), ud_labels(p.heads, p.labels))])
            use_moves = p.move_probs is not None and not p.parses
            self.weights.append(np.asarray(p.move_probs, dtype=float) if use_moves else np.ones(len(p.heads)))

    @classmethod
    def of_docs(cls, docs: Sequence[Doc], found: Sequence[Unit]) -> "TreeVotes":
        """The trees on ``docs`` of the units ``found``, as a parser set them (its beam's k best
        where ``Doc._.parses`` holds them): hard votes, what ``parse --ensemble`` reads."""
        out = []
        for k, s, e in found:
            kept = [alts for start, end, alts in docs[k].user_data.get(PARSES_KEY) or [] if (start, end) == (s, e)]
            heads, labels = span_tree(docs[k], s, e)
            parses = [(p["prob"], p["heads"], p["labels"]) for p in kept[0]] if kept and kept[0] else None
            out.append(TreeParse((s, e), list(heads), list(labels), parses=parses))
        return cls(out)

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
    """A graph-based parser's votes on some units: each unit an (``ArcVotes``, its index there)
    pair (the batches it was parsed in), answering as ``TreeVotes`` does on its units."""

    def __init__(self, at: Sequence[Tuple[ArcVotes, int]], voting: Sequence[bool] = None):
        self.at = list(at)
        self.voting = list(voting) if voting is not None else [True] * len(self.at)

    @classmethod
    def of_docs(cls, parser, docs: Sequence[Doc], found: Sequence[Unit]) -> "GraphVotes":
        """The parser's votes on ``docs``' units ``found``, its model run on them here."""
        votes = ArcVotes(parser, docs, found)
        return cls([(votes, u) for u in range(len(found))])

    def arcs(self, u: int) -> np.ndarray:
        votes, i = self.at[u]
        return votes.arcs(i)

    def labels(self, heads: Sequence[Sequence[int]], index: Dict[str, int]) -> List[np.ndarray]:
        out: List = [None] * len(heads)
        groups: Dict[int, List[int]] = {}
        for u, (votes, _) in enumerate(self.at):
            groups.setdefault(id(votes), []).append(u)
        for members in groups.values():
            votes = self.at[members[0]][0]
            for u, dist in zip(members, votes.labels([self.at[u][1] for u in members], [heads[u] for u in members],
                                                     index)):
                out[u] = dist
        return out


def reparse(votes: Sequence, n_units: int, labels: Sequence[str], root_label: str,
            weights: Sequence[float] = None, decoder: str = "mst"
            ) -> List[Tuple[List[int], List[str], np.ndarray]]:
    """Each of ``n_units`` units: its tree by the members' mean arc distribution (``votes``, one
    per member: ``TreeVotes`` or ``GraphVotes`` over those units, each weighted by ``weights``,
    equal by default; a member that does not vote on a unit, ``voting``, left out of its mean),
    decoded by ``decoder`` (``scoring.DECODERS``, one root); each word's label by their mean
    label distribution at its head, and each word's probability of both."""
    index = {label: i for i, label in enumerate(labels)}
    weights = np.ones(len(votes)) if weights is None else np.asarray(weights, dtype=float)
    share = np.asarray([[w * v.voting[u] for w, v in zip(weights, votes)] for u in range(n_units)]).reshape(
        n_units, len(votes))
    share[share.sum(axis=1) == 0] = weights  # no member votes (never expected): all of them
    share = share / share.sum(axis=1, keepdims=True)
    arcs = [sum(share[u, m] * v.arcs(u) for m, v in enumerate(votes) if share[u, m] > 0) for u in range(n_units)]
    heads = graph.DECODERS[decoder]([np.log(np.maximum(a, 1e-12)) for a in arcs], True)
    dists = [sum(share[u, m] * d for m, d in enumerate(ds) if share[u, m] > 0)
             for u, ds in enumerate(zip(*(v.labels(heads, index) for v in votes)))]
    out = []
    for unit_arcs, unit_heads, dist in zip(arcs, heads, dists):
        chosen = dist.argmax(axis=1)
        words = np.arange(len(unit_heads))
        names = [root_label if h == 0 else labels[c] for h, c in zip(unit_heads, chosen)]
        probs = unit_arcs[words, unit_heads] * np.where(np.asarray(unit_heads) == 0, 1.0, dist[words, chosen])
        out.append((unit_heads, names, probs))
    return out
