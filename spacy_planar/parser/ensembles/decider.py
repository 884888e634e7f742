"""The ``parse_decider`` component: the joint pipeline's tree of each sentence, decided from the
parsers before it (a ``planar_parser`` and a ``biaffine_parser`` on one shared encoder, trained
together) by reparsing (Sagae & Lavie 2006; ``reparse.py``).

Each parser parses the sentences set before it (the senter's, the user's, CoNLL-U's; the Doc
where none are set), writes its own tree on ``Token.head`` / ``Token.dep_`` as it would alone and
in ``Doc._.trees`` under its name, and hands each sentence's parse to this component
(``shared/handover.py``: a ``TreeParse`` of the transition parser, its tree and its moves'
probabilities; a ``GraphParse`` of the biaffine, its arcs' and labels' probabilities). The
decider reads them sentence by sentence: each word's distribution over its heads is the
weighted mean of the parsers' (``weights``), decoded as one tree with one root (``decoder``), each
label the weighted mean of their label distributions at the head chosen; the tree is written on
``Token.head`` / ``Token.dep_`` and each word's probability of its head and label on
``Token._.head_prob``. Since each parser's tree has one root a sentence and the decider
decides the same sentences, no boundary set before it moves. A repaired tree (never expected)
does not vote (W129); a sentence whose parse was not handed over (the Doc copied or read back
between the parsers and the decider) is decided from ``Doc._.trees`` as hard votes (W128); a
parser that did not run (``nlp.select_pipes(disable=...)``) does not vote.
Both warnings raise under ``SPACY_PLANAR_DEBUG=1``.

Its settings are its config's and nothing is learned (no weights, nothing saved): what it is
given at load is what it does. What the parsers were trained with stays theirs (E139).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_planar.errors import Errors, UserError, Warnings, unexpected
from spacy_planar.io.conllu import HEAD_PROB_DECIMALS, HEAD_PROBS_KEY, MOVE_LOGP_KEY, PARSES_KEY
from spacy_planar.io.doc_trees import set_trees
from spacy_planar.parser.ensembles.reparse import GraphVotes, TreeVotes, reparse
from spacy_planar.parser.graph import scoring as graph
from spacy_planar.parser.graph.component import BiaffineParser
from spacy_planar.parser.shared import scorer as _scorer  # noqa: F401  (registers the default scorer)
from spacy_planar.parser.shared.extensions import TREES_KEY
from spacy_planar.parser.shared.handover import GraphParse, TreeParse
from spacy_planar.parser.shared.units import units
from spacy_planar.parser.transition.pipe import PlanarParser

VOTES = ("moves", "tree", "kbest")  # how a transition parser votes (the module's text)


@Language.factory(
    "parse_decider",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    # arc-eager's moves and the biaffine's arcs at equal weight: docs/decisions.md (2026-12-07)
    default_config={"parsers": ["planar_parser", "biaffine_parser"], "weights": [0.5, 0.5], "votes": "moves",
                    "decoder": "mst", "scorer": {"@scorers": "spacy-planar.parser_scorer.v1"}},
    default_score_weights={
        "dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "dep_np_p": None, "dep_np_r": None,
        "dep_np_f": 0.0, "sents_p": None, "sents_r": None, "sents_f": 0.0,
    },
)
def make_parse_decider(nlp: Language, name: str, parsers: List[str], weights: List[float], votes: str,
                       decoder: str, scorer: Optional[Callable]):
    """The tree of each sentence decided from the parsers named (the module's text).

    parsers: the components it reads, each before it: planar_parser and biaffine_parser
        components, the transition parsers with single_root, the biaffines with their trees as
        they are (pseudo_projective null, no tree_transforms: their arcs are the trees').
    weights: each parser's share of the vote (one a parser; they need not sum to 1).
    votes: how a transition parser votes: "moves" (each word's head at the probability of the
        move that attached it; a root at its probability of staying headless), "tree" (all of a
        word's mass on its head), "kbest" (its beam's k best parses at their probabilities;
        needs beam_width > 1 and n_best > 1).
    decoder: "mst" (the best tree, Chu-Liu-Edmonds) or "eisner" (the best projective one).
    """
    if len(weights) != len(parsers) or min(weights, default=0) < 0 or sum(weights) <= 0:
        raise UserError(Errors.E168.format(name=name, reason=f"weights {list(weights)} must be one a parser of "
                                           f"{list(parsers)}, none below 0, not all 0"))
    if votes not in VOTES:
        raise UserError(Errors.E134.format(what=f"{name} votes", value=votes, rule=" or ".join(VOTES)))
    if decoder not in graph.DECODERS:
        raise UserError(Errors.E134.format(what=f"{name} decoder", value=decoder, rule=" or ".join(graph.DECODERS)))
    pipes = [check_parser(nlp, name, parser, votes) for parser in parsers]
    decider = ParseDecider(nlp.vocab, name, list(parsers), pipes, list(weights), votes, decoder, scorer)
    for pipe in pipes:
        pipe.handover.listen(name)
    return decider


def check_parser(nlp: Language, name: str, parser: str, votes: str):
    """The component named ``parser``, made before the decider and one it can read (else E168)."""
    if parser not in nlp.component_names:
        raise UserError(Errors.E168.format(name=name, reason=f"no component '{parser}' comes before it "
                                           f"({', '.join(nlp.component_names)})"))
    pipe = nlp.get_pipe(parser)
    if isinstance(pipe, BiaffineParser):
        if pipe.settings.pseudo_projective is not None or pipe.settings.tree_transforms:
            raise UserError(Errors.E168.format(name=name, reason=f"{parser} votes with its arcs' probabilities of "
                                               "the trees as they are: set its pseudo_projective = null and no "
                                               "tree_transforms"))
    elif isinstance(pipe, PlanarParser):
        s = pipe.settings
        if not s.single_root:
            raise UserError(Errors.E168.format(name=name, reason=f"{parser} must build one root a sentence "
                                               "(single_root = true): each of its roots would start a sentence"))
        if votes == "kbest" and not (s.n_best > 1 and s.beam_width > 1):
            raise UserError(Errors.E168.format(name=name, reason=f"votes = \"kbest\" reads {parser}'s beam's k best "
                                               f"parses: give it beam_width > 1 and n_best > 1 (it has "
                                               f"{s.beam_width} and {s.n_best})"))
    else:
        raise UserError(Errors.E168.format(name=name, reason=f"'{parser}' is no planar_parser or biaffine_parser"))
    return pipe


class ParseDecider(Pipe):
    """The component (the module's text): no model, nothing learned."""

    def __init__(self, vocab, name: str, names: List[str], parsers: Sequence, weights: List[float], votes: str,
                 decoder: str, scorer: Optional[Callable]):
        self.vocab = vocab
        self.name = name
        self.names = names
        self.parsers = list(parsers)
        self.weights = weights
        self.votes = votes
        self.decoder = decoder
        self.scorer = scorer
        self.cfg = {"parsers": names, "weights": weights, "votes": votes, "decoder": decoder}
        self.repaired: Counter = Counter()  # per parser: its repaired trees that did not vote
        self.missing: Counter = Counter()  # per parser: sentences decided without its handed-over parse

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(sorted({label for parser in self.parsers for label in parser.labels}))

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations([doc], self.predict([doc]))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        for docs in minibatch(stream, size=batch_size):
            self.set_annotations(docs, self.predict(docs))
            yield from docs

    def initialize(self, get_examples: Callable, *, nlp: Optional[Language] = None) -> None:
        """Nothing to learn."""

    def predict(self, docs: Iterable[Doc]) -> List[Tuple[Tuple[int, int, int], Tuple]]:
        """Each sentence of ``docs`` ((Doc, start, end): the Doc's sentences, which the parsers
        before it kept) with its decided (heads, labels, each word's probability)."""
        docs = list(docs)
        found = [(k, s, e) for k, doc in enumerate(docs) for s, e in units(doc)]
        if not found:
            return []
        members = [self._member(name, parser, docs, found) for name, parser in zip(self.names, self.parsers)]
        decided = reparse(members, len(found), self.labels, self.parsers[0].settings.root_label,
                          weights=self.weights, decoder=self.decoder)
        return list(zip(found, decided))

    def _member(self, name: str, parser, docs: List[Doc], found) -> object:
        """One parser's votes on the sentences ``found``: its handed-over parses (``TreeVotes`` of
        a transition parser as ``votes`` asks, ``GraphVotes`` of a biaffine), where one was not
        handed over its tree on ``Doc._.trees`` as a hard vote (W128); a repaired tree does not
        vote (W129)."""
        handed: Dict[Tuple[int, int, int], object] = {}
        for k, doc in enumerate(docs):
            for parse in parser.handover.take(doc) or []:
                handed[(k, *parse.span)] = parse
        missing, repaired = 0, 0
        graph_at, tree_parses, voting = [], [], []
        for unit in found:
            parse = handed.get(unit)
            if parse is None:  # its tree where it wrote one (W128); none where it did not run (disabled)
                parse = _stored_tree(docs[unit[0]], name, unit)
                missing += parse is not None
            repaired += bool(parse is not None and parse.repaired)
            voting.append(parse is not None and not parse.repaired)
            if isinstance(parse, GraphParse):
                graph_at.append((parse.scores, parse.unit))
            else:
                tree_parses.append(self._as_voted(parse, unit))
        self._report(name, len(found), missing, repaired)
        if isinstance(parser, BiaffineParser) and len(graph_at) == len(found):
            return GraphVotes(graph_at, voting=voting)
        if isinstance(parser, BiaffineParser):  # some or all of its parses were not handed over: its trees
            tree_parses = [self._as_voted(handed.get(unit) or _stored_tree(docs[unit[0]], name, unit), unit)
                           for unit in found]
        votes = TreeVotes(tree_parses)
        votes.voting = voting
        return votes

    def _as_voted(self, parse: Optional[TreeParse], unit) -> TreeParse:
        """A transition parser's parse as ``votes`` has it vote (no parse: a flat placeholder that
        does not vote)."""
        if parse is None:
            n = unit[2] - unit[1]
            return TreeParse(unit[1:], [0] + [1] * (n - 1), [""] * n, repaired=True)
        if isinstance(parse, GraphParse):
            parse = TreeParse(parse.span, parse.heads, parse.labels, repaired=parse.repaired)
        if self.votes == "tree":
            return replace(parse, move_probs=None, parses=None)
        if self.votes == "moves":
            return replace(parse, parses=None)
        return parse

    def _report(self, name: str, units: int, missing: int, repaired: int) -> None:
        if missing:
            self.missing[name] += missing
            unexpected(Warnings.W128.format(name=self.name, count=missing, units=units, parser=name))
        if repaired:
            self.repaired[name] += repaired
            unexpected(Warnings.W129.format(name=self.name, count=repaired, units=units, parser=name))

    def set_annotations(self, docs: Iterable[Doc], decided) -> None:
        """The decided trees on ``Token.head`` / ``Token.dep_`` (sentence by sentence, the Docs'
        own order), each word's probability on ``Token._.head_prob``; the transition parser's k
        best parses and moves (``Doc._.parses``) are its own, not the decided tree's: removed."""
        docs = list(docs)
        if decided:
            set_trees(docs, np.concatenate([np.asarray(h, dtype=np.int64) for _, (h, _, _) in decided]),
                      [label for _, (_, labels, _) in decided for label in labels],
                      [len(h) for _, (h, _, _) in decided])
        for doc in docs:
            doc.user_data.pop(PARSES_KEY, None)
            doc.user_data.pop(MOVE_LOGP_KEY, None)
            doc.user_data[HEAD_PROBS_KEY] = [None] * len(doc)
        for (k, s, e), (_, _, probs) in decided:
            docs[k].user_data[HEAD_PROBS_KEY][s:e] = np.round(probs, HEAD_PROB_DECIMALS).tolist()

    def to_disk(self, path, *, exclude=tuple()):
        """Nothing to save: its settings are the pipeline's config."""

    def from_disk(self, path, *, exclude=tuple()):
        return self

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return b""

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        return self


def _stored_tree(doc: Doc, name: str, unit) -> Optional[TreeParse]:
    """A parser's own tree of a sentence as it wrote it on ``Doc._.trees``, or None."""
    for start, end, heads, labels in (doc.user_data.get(TREES_KEY) or {}).get(name, []):
        if (start, end) == tuple(unit[1:]):
            return TreeParse((start, end), list(heads), list(labels))
    return None
