"""The sentence splitter of the UD pipeline: spaCy's ``senter``, scored on
its own predictions.

spaCy's senter with ``overwrite = false`` keeps sentence starts a Doc
already has. The dev reader gives the gold ones (the parser is scored on
gold sentences, as the CoNLL 2018 scorer's gold-words figures are), so
spaCy's ``senter_scorer`` compared the gold sentences with themselves and
printed 100.00 throughout training. ``planar_senter`` is the same
component, annotating exactly as spaCy's, that also keeps what it predicted
where a start was already given (``doc.user_data[SENTER_STARTS_KEY]``), and
``spacy-planar.senter_scorer.v1`` scores those predictions: the splitter's
own F-score on the dev Docs of several sentences, while the parser still
reads the gold sentences. The parser's scorer reads the same sentences
(``io.doc_trees.sentence_scores``), so that its ``sents_f``, which spaCy's
``Language.evaluate`` prints over the senter's, is the same figure."""
from typing import Callable, Iterable, Optional

from spacy.language import Language
from spacy.pipeline.senter import DEFAULT_SENTER_MODEL, SentenceRecognizer
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry
from thinc.api import Model

from spacy_planar.io.doc_trees import SENTER_STARTS_KEY, sentence_scores


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
                doc.user_data[SENTER_STARTS_KEY] = [int(t) == 1 for t in tag_ids]
            else:
                doc.user_data.pop(SENTER_STARTS_KEY, None)


@Language.factory("planar_senter", assigns=["token.is_sent_start"],
                  default_config={"model": DEFAULT_SENTER_MODEL, "overwrite": False,
                                  "scorer": {"@scorers": "spacy-planar.senter_scorer.v1"}},
                  default_score_weights={"sents_f": 1.0, "sents_p": 0.0, "sents_r": 0.0})
def make_planar_senter(nlp: Language, name: str, model: Model, overwrite: bool,
                       scorer: Optional[Callable]) -> PlanarSenter:
    return PlanarSenter(nlp.vocab, model, name, overwrite=overwrite, scorer=scorer)


def senter_score(examples: Iterable[Example], **kwargs) -> dict:
    """Precision, recall and F of sentence spans: the splitter's own
    predictions against the reference's sentences (``sentence_scores``)."""
    return sentence_scores(examples, **kwargs)


@registry.scorers("spacy-planar.senter_scorer.v1")
def make_senter_scorer() -> Callable:
    return senter_score
