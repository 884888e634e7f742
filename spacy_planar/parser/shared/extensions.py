"""What the parser puts on Docs beside ``Token.head`` / ``Token.dep_`` when
it keeps its beam's k best parses (``n_best`` > 1; ``transition/kbest.py``):

- ``Doc._.parses``: per sentence (in order), its k most probable distinct
  trees, each ``{"prob": P, "heads": [...], "labels": [...]}`` in UD terms
  (heads 1-based within the sentence, 0 for the root; after
  deprojectivization and the inverse tree transforms), the first being the
  tree on ``Token.head`` / ``Token.dep_``;
- ``Span._.parses``: the same for one sentence (``doc.sents``);
- ``Token._.head_prob``: the probability that the word's head and label are
  right (``kbest.arc_confidence``: the beam's marginal and the probabilities
  of the moves that made the arc, calibrated on dev by ``spacy-planar
  calibrate``);
- ``Doc._.trees``: in a pipeline of two parsers, the last of which reparses
  (a ``biaffine_parser`` with ``reparse_with``), each parser's own tree by its
  component's name: per sentence ``{"heads": [...], "labels": [...]}`` as
  ``Doc._.parses`` has them, while ``Token.head`` / ``Token.dep_`` hold the
  tree decided from both.

They live in ``Doc.user_data`` (so a DocBin keeps them) and are None where
the parser kept no beam (``trees``: where no parser reparsed)."""
from __future__ import annotations

from spacy.tokens import Doc, Span, Token

from spacy_planar.io.conllu import HEAD_PROBS_KEY, PARSES_KEY

# each parser's own tree where a later one reparsed: {component: [(start, end, heads, labels), ...]}
TREES_KEY = "spacy_planar_trees"


def _doc_parses(doc):
    stored = doc.user_data.get(PARSES_KEY)
    return None if stored is None else [alts for _, _, alts in stored]


def _span_parses(span):
    stored = span.doc.user_data.get(PARSES_KEY)
    if stored is None:
        return None
    return next((alts for s, e, alts in stored if s == span.start and e == span.end), None)


def _doc_trees(doc):
    stored = doc.user_data.get(TREES_KEY)
    return None if stored is None else {name: [{"heads": list(h), "labels": list(lab)} for _, _, h, lab in units]
                                        for name, units in stored.items()}


def _head_prob(token):
    probs = token.doc.user_data.get(HEAD_PROBS_KEY)
    return None if probs is None else probs[token.i]


def register() -> None:
    for cls, name, getter in ((Doc, "parses", _doc_parses), (Span, "parses", _span_parses),
                              (Doc, "trees", _doc_trees), (Token, "head_prob", _head_prob)):
        if not cls.has_extension(name):
            cls.set_extension(name, getter=getter)
