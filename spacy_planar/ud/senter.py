"""The sentence splitter of the UD pipeline: spaCy's ``senter``, scored on
its own predictions.

spaCy's senter with ``overwrite = false`` keeps sentence starts a Doc
already has. The dev reader gives the gold ones (the parser is scored on
gold sentences, as the CoNLL 2018 scorer's gold-words figures are), so
spaCy's ``senter_scorer`` compared the gold sentences with themselves and
printed 100.00 throughout training. ``planar_senter`` is the same
component, annotating exactly as spaCy's, that also keeps what it predicted
where a start was already given (``doc.user_data[PREDICTED_KEY]``), and
``spacy-planar.senter_scorer.v1`` scores those predictions: the splitter's
own F-score on the dev Docs of several sentences, while the parser still
reads the gold sentences."""
from typing import Callable, Iterable, List, Optional

from spacy.language import Language
from spacy.pipeline.senter import DEFAULT_SENTER_MODEL, SentenceRecognizer
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry
from thinc.api import Model

PREDICTED_KEY = "spacy_planar.senter_starts"  # the splitter's own sentence starts, where they were not applied


class PlanarSenter(SentenceRecognizer):
    """spaCy's SentenceRecognizer whose predictions stay readable when
    ``overwrite`` is off and the Doc's sentence starts were given."""

    def set_annotations(self, docs, batch_tag_ids) -> None:
        if isinstance(docs, Doc):
            docs = [docs]
        given = [doc.has_annotation("SENT_START") and not self.cfg["overwrite"] for doc in docs]
        super().set_annotations(docs, batch_tag_ids)
        for doc, tag_ids, kept in zip(docs, batch_tag_ids, given):
            if kept:
                if hasattr(tag_ids, "get"):
                    tag_ids = tag_ids.get()
                doc.user_data[PREDICTED_KEY] = [int(t) == 1 for t in tag_ids]
            else:
                doc.user_data.pop(PREDICTED_KEY, None)


@Language.factory("planar_senter", assigns=["token.is_sent_start"],
                  default_config={"model": DEFAULT_SENTER_MODEL, "overwrite": False,
                                  "scorer": {"@scorers": "spacy-planar.senter_scorer.v1"}},
                  default_score_weights={"sents_f": 1.0, "sents_p": 0.0, "sents_r": 0.0})
def make_planar_senter(nlp: Language, name: str, model: Model, overwrite: bool,
                       scorer: Optional[Callable]) -> PlanarSenter:
    return PlanarSenter(nlp.vocab, model, name, overwrite=overwrite, scorer=scorer)


def predicted_starts(doc: Doc) -> Optional[List[bool]]:
    """The splitter's sentence starts on a Doc: those it kept aside, else
    the Doc's own; None where the Doc has none."""
    stored = doc.user_data.get(PREDICTED_KEY)
    if stored is not None and len(stored) == len(doc):
        return [True] + list(stored[1:]) if len(doc) else []
    if not doc.has_annotation("SENT_START"):
        return None
    return [bool(t.is_sent_start) for t in doc]


def _sentence_spans(doc: Doc, attr: str) -> Iterable:
    starts = predicted_starts(doc) or []
    bounds = [i for i, s in enumerate(starts) if s] + [len(doc)]
    return [doc[a:b] for a, b in zip(bounds, bounds[1:])]


def senter_score(examples: Iterable[Example], **kwargs) -> dict:
    """Precision, recall and F of sentence spans: the splitter's own
    predictions (``predicted_starts``) against the reference's sentences."""
    results = Scorer.score_spans(examples, "sents", getter=_sentence_spans,
                                 has_annotation=lambda doc: predicted_starts(doc) is not None, **kwargs)
    results.pop("sents_per_type", None)
    return results


@registry.scorers("spacy-planar.senter_scorer.v1")
def make_senter_scorer() -> Callable:
    return senter_score
