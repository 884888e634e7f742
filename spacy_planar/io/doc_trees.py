"""The one adapter between spaCy's ``Doc`` and head arrays.

Trees in this package are (heads, labels) over the words 1..n of a sentence,
HEAD 0 for a root (CoNLL-U's numbering); a Doc stores each token's head as
an offset, a root being its own head. ``span_tree`` reads a stretch of a Doc
as such a tree, ``set_trees`` writes trees back into Docs. ``sentence_spans``
gives a Doc's sentences as the sentence splitter predicted them, where
``planar_senter`` kept its predictions beside given ones
(``SENTER_STARTS_KEY``): the scorers' getter.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np
from spacy.attrs import DEP, HEAD

from spacy_planar.defaults import ROOT_LABEL
from spacy_planar.errors import Warnings, unexpected
from spacy_planar.trees.algorithms import Tree

OUTSIDE = -1  # ``span_tree``'s head of a token whose head lies outside the span
SENTER_STARTS_KEY = "spacy_planar.senter_starts"  # the splitter's own sentence starts, where they were not applied


def words_copy(vocab, doc, sent_starts: Optional[Sequence[bool]] = None):
    """A Doc of ``doc``'s words, spaces and sentence starts (``sent_starts`` in their place where
    given; none where ``doc`` has none) in ``vocab``, and nothing else: the one copy the readers
    (a gold Doc's words to predict on) and the ensembles (a Doc in a member's vocab) make."""
    from spacy.tokens import Doc

    if sent_starts is None and doc.has_annotation("SENT_START"):
        sent_starts = [bool(t.is_sent_start) for t in doc]
    return Doc(vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc], sent_starts=sent_starts)


def predicted_starts(doc) -> Optional[List[bool]]:
    """The sentence splitter's starts on a Doc: those it kept aside
    (``SENTER_STARTS_KEY``), else the Doc's own; None where it has none."""
    stored = doc.user_data.get(SENTER_STARTS_KEY)
    if stored is not None and len(stored) == len(doc):
        return [True] + list(stored[1:]) if len(doc) else []
    if stored is not None:  # never expected: the senter keeps one start a token
        unexpected(Warnings.W126.format(length=len(doc), kept=len(stored)))
    if not doc.has_annotation("SENT_START"):
        return None
    return [bool(t.is_sent_start) for t in doc]


def sentence_spans(doc, attr: str = "sents") -> list:
    """``Scorer.score_spans``' getter for ``sents``: the spans between
    ``predicted_starts``."""
    starts = predicted_starts(doc) or []
    bounds = [i for i, s in enumerate(starts) if s] + [len(doc)]
    return [doc[a:b] for a, b in zip(bounds, bounds[1:])]


def has_sentences(doc) -> bool:
    return predicted_starts(doc) is not None


def sentence_scores(examples, **kwargs) -> dict:
    """``sents_p``, ``sents_r``, ``sents_f`` of the splitter's own sentences
    (``sentence_spans``) against the reference's: the senter's scorer and
    the parser's, so that the figure spaCy prints is the same from both."""
    from spacy.scorer import Scorer

    results = Scorer.score_spans(examples, "sents", getter=sentence_spans, has_annotation=has_sentences, **kwargs)
    results.pop("sents_per_type", None)
    return results


def span_tree(doc, start: int = 0, end: Optional[int] = None) -> Tree:
    """(heads, labels) of the tokens ``start:end`` of a parsed Doc: heads
    1-based within the span, 0 for a root, ``OUTSIDE`` for a head outside
    the span."""
    end = len(doc) if end is None else end
    arcs = doc[start:end].to_array([HEAD, DEP])  # HEAD: the head's offset, as uint64
    offset = arcs[:, 0].astype(np.int64)
    word = np.arange(end - start)
    head = word + offset  # 0-based within the span
    heads = np.where(offset == 0, 0, np.where((head >= 0) & (head < end - start), head + 1, OUTSIDE))
    strings = doc.vocab.strings
    return heads.tolist(), [strings[d] for d in arcs[:, 1].tolist()]


def ud_labels(heads: Sequence[int], labels: Sequence[str]) -> List[str]:
    """Labels in UD terms: spaCy's own root label ``ROOT`` (its parser's,
    whatever the data said) on a root word is UD's ``root``."""
    return [ROOT_LABEL if h == 0 and label == "ROOT" else label for h, label in zip(heads, labels)]


def ud_tree(doc, start: int = 0, end: Optional[int] = None) -> Tree:
    """``span_tree`` with the labels in UD terms (``ud_labels``): what a
    parse of the span is in CoNLL-U."""
    heads, labels = span_tree(doc, start, end)
    return heads, ud_labels(heads, labels)


def set_trees(docs: Sequence, heads: np.ndarray, labels: Sequence[str], lengths: Sequence[int]) -> None:
    """Write trees into Docs: ``heads`` / ``labels`` concatenate one tree per
    unit (1-based within its unit, 0 for a root), ``lengths`` the units'
    sizes; the units tile the Docs in order."""
    if not len(lengths):
        return
    bounds = np.cumsum([0] + list(lengths))
    word = np.arange(len(heads)) - np.repeat(bounds[:-1], lengths)  # 0-based within its unit
    arr = np.empty((len(heads), 2), dtype="uint64")
    arr[:, 0] = np.where(heads == 0, 0, heads - 1 - word).astype("uint64")  # relative, two's complement
    strings = docs[0].vocab.strings
    label_hash = {label: strings.add(label) for label in set(labels)}
    arr[:, 1] = [label_hash[label] for label in labels]
    start = 0
    for doc in docs:
        if len(doc):
            doc.from_array([HEAD, DEP], arr[start:start + len(doc)])
            start += len(doc)
