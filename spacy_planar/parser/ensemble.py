"""Several pipelines trained on one treebank (other seeds) parsing as one.

An ensemble of seeds at parse time: each member encodes the Docs with its
own tok2vec; the taggers' (morphologizer, tagger, lemmatizer) probabilities
are averaged before the first pipeline's components choose their tags; the
parser's moves are scored by the mean of the members' log-probabilities
(``EnsembleScorer``: a product of experts), so that one tree per sentence is
built by the first pipeline's transition system with the members' joint
preference. The first pipeline's components that come before the tok2vec
(multiword tokens, the senter) run alone: every member reads the same words
and sentences. The members must have the same components and labels (seeds
of one config on one treebank: E136 otherwise). ``Ensemble`` stands where a
pipeline does for ``parse`` (``parse --ensemble``).
"""
from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Sequence

from spacy.language import Language
from spacy.pipeline import EditTreeLemmatizer, Tagger
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_planar.errors import Errors, UserError
from spacy_planar.parser.ensembles import EnsembleScorer, member_doc
from spacy_planar.parser.pipe import PlanarParser


class Ensemble:
    """The first pipeline with the others as members (see the module's text)."""

    def __init__(self, nlp: Language, others: Sequence[Language]):
        self.nlp = nlp
        self.members = [nlp, *others]
        self.parser = next((name for name, pipe in nlp.pipeline if isinstance(pipe, PlanarParser)), None)
        if self.parser is None or "tok2vec" not in nlp.pipe_names:
            raise UserError(Errors.E136.format(reason="the first pipeline has no tok2vec or no planar_parser"))
        at = nlp.pipe_names.index("tok2vec")
        self.before = nlp.pipe_names[:at]  # the first pipeline's alone: words and sentences
        self.taggers = [name for name in nlp.pipe_names[at + 1:nlp.pipe_names.index(self.parser)]
                        if isinstance(nlp.get_pipe(name), (Tagger, EditTreeLemmatizer))]
        for other in others:
            for name in ["tok2vec", *self.taggers, self.parser]:
                if name not in other.pipe_names or other.get_pipe(name).labels != nlp.get_pipe(name).labels:
                    raise UserError(Errors.E136.format(reason=f"its '{name}' differs in its labels or is missing"))

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
            yield from self._annotate([self.nlp.make_doc(t) if isinstance(t, str) else t for t in batch],
                                      set(disable))

    def _annotate(self, docs: List[Doc], disable: set) -> List[Doc]:
        for name in self.before:
            if name not in disable:
                docs = list(self.nlp.get_pipe(name).pipe(docs))
        copies = [docs] + [[member_doc(other, doc) for doc in docs] for other in self.members[1:]]
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
        if self.parser not in disable:
            parser = self.nlp.get_pipe(self.parser)
            scorer = EnsembleScorer([member.get_pipe(self.parser).model.predict(member_docs)
                                     for member, member_docs in zip(self.members, copies)])
            parser.set_annotations(docs, parser.predict(docs, scorer=scorer))
        after = self.nlp.pipe_names[self.nlp.pipe_names.index(self.parser) + 1:]
        for name in after:
            if name not in disable:
                docs = list(self.nlp.get_pipe(name).pipe(docs))
        return docs
