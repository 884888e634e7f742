"""Several pipelines trained on one treebank (other seeds, other systems) parsing as one.

An ensemble at parse time: each member encodes the Docs with its own
tok2vec; the taggers' (morphologizer, tagger, lemmatizer) probabilities are
averaged before the first pipeline's components choose their tags. Members
of one transition system (seeds of one config): the parser's moves are scored
by the mean of the members' log-probabilities (``EnsembleScorer``: a product
of experts), so that one tree per sentence is built by the first pipeline's
transition system with the members' joint preference. Members of different
systems (a transition system and the biaffine, or two systems): each parses,
and their arc distributions are averaged and decoded as one
(``reparse.py``: the biaffine's arc probabilities, a transition parser's
tree; a biaffine trained on pseudo-projective or transformed trees, its
decoded tree). The first pipeline's components that come before the tok2vec
(multiword tokens, the senter) run alone: every member reads the same words
and sentences. The members must have the same taggers and labels (E136
otherwise). ``Ensemble`` stands where a pipeline does for ``parse``
(``parse --ensemble``).
"""
from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Sequence

import numpy as np

from spacy.language import Language
from spacy.pipeline import EditTreeLemmatizer, Tagger
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import HEAD_PROB_DECIMALS, HEAD_PROBS_KEY, PARSES_KEY
from spacy_planar.io.doc_trees import set_trees, words_copy
from spacy_planar.parser.graph.component import BiaffineParser
from spacy_planar.parser.transition.moves import EnsembleScorer
from spacy_planar.parser.shared.units import units
from spacy_planar.parser.transition.pipe import PlanarParser
from spacy_planar.parser.ensembles.reparse import GraphVotes, TreeVotes, reparse

PARSERS = (PlanarParser, BiaffineParser)


class Ensemble:
    """The first pipeline with the others as members (see the module's text)."""

    def __init__(self, nlp: Language, others: Sequence[Language]):
        self.nlp = nlp
        self.members = [nlp, *others]
        self.parsers = [next((name for name, pipe in member.pipeline if isinstance(pipe, PARSERS)), None)
                        for member in self.members]
        self.parser = self.parsers[0]
        if None in self.parsers or "tok2vec" not in nlp.pipe_names:
            raise UserError(Errors.E136.format(reason="a pipeline has no tok2vec or no parser of ours"))
        if any(sum(isinstance(pipe, PARSERS) for _, pipe in member.pipeline) > 1 for member in self.members):
            raise UserError(Errors.E136.format(reason="a pipeline holds two parsers (a joint pipeline decides its "
                                               "trees itself): give pipelines of one parser each"))
        at = nlp.pipe_names.index("tok2vec")
        self.before = nlp.pipe_names[:at]  # the first pipeline's alone: words and sentences
        self.taggers = [name for name in nlp.pipe_names[at + 1:nlp.pipe_names.index(self.parser)]
                        if isinstance(nlp.get_pipe(name), (Tagger, EditTreeLemmatizer))]
        for other in others:
            for name in ["tok2vec", *self.taggers]:
                if name not in other.pipe_names or other.get_pipe(name).labels != nlp.get_pipe(name).labels:
                    raise UserError(Errors.E136.format(reason=f"its '{name}' differs in its labels or is missing"))
        pipes = [member.get_pipe(name) for member, name in zip(self.members, self.parsers)]
        first = pipes[0]
        # one transition system with the same labels: the moves as one; else the trees by reparsing
        self.one_system = all(isinstance(p, PlanarParser) and p.settings.system == first.settings.system
                              and p.settings.labels == first.settings.labels for p in pipes)
        self.labels = sorted({label for p in pipes for label in p.labels})
        if not self.one_system:  # a transition parser with a beam votes with its k best parses' probabilities
            for pipe in pipes:
                if isinstance(pipe, PlanarParser) and pipe.settings.beam_width > 1:
                    pipe.settings.n_best = pipe.settings.beam_width

    # what the commands read of a pipeline
    @property
    def vocab(self):
        return self.nlp.vocab

    @property
    def pipe_names(self) -> List[str]:
        return self.nlp.pipe_names

    def get_pipe(self, name: str):
        return self.nlp.get_pipe(name)

    def get_pipe_meta(self, name: str):
        return self.nlp.get_pipe_meta(name)

    def make_doc(self, text: str) -> Doc:
        return self.nlp.make_doc(text)

    def __call__(self, text) -> Doc:
        return next(self.pipe([text]))

    def pipe(self, texts: Iterable, batch_size: Optional[int] = None, disable: Sequence[str] = ()) -> Iterator[Doc]:
        """``Language.pipe``'s: texts or Docs in, annotated Docs out
        (``batch_size``: the first pipeline's by default)."""
        for batch in minibatch(texts, batch_size or self.nlp.batch_size):
            yield from self.annotate([self.nlp.make_doc(t) if isinstance(t, str) else t for t in batch],
                                     set(disable))

    def annotate(self, docs: List[Doc], disable: Sequence[str] = (), run_first: bool = True) -> List[Doc]:
        """The members' annotation of ``docs`` as one, but the components in ``disable``;
        ``run_first``: the first pipeline's components before its tok2vec too (not where a
        pipeline ran them already: ``component.PipelineEnsemble``)."""
        for name in self.before if run_first else ():
            if name not in disable:
                docs = list(self.nlp.get_pipe(name).pipe(docs))
        copies = self._encode(docs, disable)
        if self.parser not in disable:
            self._parse(docs, copies)
        after = self.nlp.pipe_names[self.nlp.pipe_names.index(self.parser) + 1:]
        for name in after:
            if name not in disable:
                docs = list(self.nlp.get_pipe(name).pipe(docs))
        return docs

    def _encode(self, docs: List[Doc], disable: set = frozenset()) -> List[List[Doc]]:
        """Each member's copies of ``docs`` (the first member's are ``docs``), encoded by its
        tok2vec and tagged by the members' taggers as one (their mean probabilities)."""
        copies = [docs] + [[words_copy(other.vocab, doc) for doc in docs] for other in self.members[1:]]
        for member, member_docs in zip(self.members, copies):
            list(member.get_pipe("tok2vec").pipe(member_docs))  # sets each Doc's tensor, which listeners read
        for name in self.taggers:
            if name in disable:
                continue
            mine = self.nlp.get_pipe(name)
            scores = [member.get_pipe(name).model.predict(member_docs)
                      for member, member_docs in zip(self.members, copies)]
            mean = [sum(doc_scores) / len(scores) for doc_scores in zip(*scores)]
            guesses = (mine._scores2guesses_top_k_equals_1(docs, mean) if isinstance(mine, EditTreeLemmatizer)
                       else mine._scores2guesses(mean))
            for member, member_docs in zip(self.members, copies):  # a parser may read the tags
                member.get_pipe(name).set_annotations(member_docs, guesses)
        return copies

    def head_distributions(self, docs: List[Doc]) -> List[np.ndarray]:
        """Each unit of ``docs`` (their words and sentences as given: the first pipeline's
        components before its tok2vec do not run), in order: the members' mean distribution over
        each word's heads ((words, words + 1), column 0 the root), what the reparse decodes."""
        found = [(k, s, e) for k, doc in enumerate(docs) for s, e in units(doc)]
        votes = self._votes(docs, self._encode(docs), found)
        return [sum(v.arcs(u) for v in votes) / len(votes) for u in range(len(found))]

    def _parse(self, docs: List[Doc], copies: List[List[Doc]]) -> None:
        """The trees of ``docs`` by the members' parsers as one (see the module's text)."""
        parser = self.nlp.get_pipe(self.parser)
        if self.one_system:
            scorer = EnsembleScorer([member.get_pipe(name).model.predict(member_docs)
                                     for member, name, member_docs in zip(self.members, self.parsers, copies)])
            parser.set_annotations(docs, parser.predict(docs, scorer=scorer))
            return
        found = [(k, s, e) for k, doc in enumerate(docs) for s, e in units(doc)]
        trees = reparse(self._votes(docs, copies, found), len(found), self.labels, parser.settings.root_label)
        if trees:
            set_trees(docs, np.concatenate([np.asarray(h, dtype=np.int64) for h, _, _ in trees]),
                      [label for _, labels, _ in trees for label in labels], [len(h) for h, _, _ in trees])
        for doc in docs:
            doc.user_data[HEAD_PROBS_KEY] = [None] * len(doc)
        for (k, s, e), (_, _, probs) in zip(found, trees):
            docs[k].user_data[HEAD_PROBS_KEY][s:e] = np.round(probs, HEAD_PROB_DECIMALS).tolist()

    def _votes(self, docs: List[Doc], copies: List[List[Doc]], found) -> List:
        """Each member's distributions over the heads and labels of the units ``found``
        (``reparse.GraphVotes`` or ``reparse.TreeVotes``); the Docs keep no k best parses. A
        biaffine whose arcs are of encoded trees (pseudo-projective, or transformed) votes with
        its decoded tree, as a transition parser does: its arcs are not the trees' arcs."""
        for doc in docs:  # the first member's k best parses are its own, not the ensemble's
            doc.user_data.pop(PARSES_KEY, None)
        votes = []
        for member, name, member_docs in zip(self.members, self.parsers, copies):
            pipe = member.get_pipe(name)
            if isinstance(pipe, BiaffineParser) and not (pipe.settings.pseudo_projective
                                                         or pipe.settings.tree_transforms):
                votes.append(GraphVotes.of_docs(pipe, member_docs, found))
            else:
                pipe.set_annotations(member_docs, pipe.predict(member_docs))
                votes.append(TreeVotes.of_docs(member_docs, found))
        for doc in docs:
            doc.user_data.pop(PARSES_KEY, None)
        return votes
