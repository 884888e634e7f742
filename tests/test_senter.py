"""The UD pipeline's sentence splitter (``planar_senter``): spaCy's senter,
annotating as it does, scored on its own predictions where the dev reader
gives the gold sentences (issue 66: it printed 100.00 throughout training)."""
import random

import numpy
import pytest
import spacy
from conftest import first_docs, fixture_path
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example

from spacy_planar.io.readers import run_example
from spacy_planar.io.doc_trees import SENTER_STARTS_KEY as PREDICTED_KEY
from spacy_planar.ud.senter import senter_score

RUN = 5  # sentences a dev Example holds, as the configs' [corpora.dev] reads them


def examples(nlp, split: str, n: int):
    docs = first_docs(fixture_path(split), nlp.vocab, n)
    return [run_example(nlp.vocab, docs[i:i + RUN]) for i in range(0, len(docs), RUN)]


def f_score(gold_starts, predicted_starts):
    """Sentence spans' F-score by hand: a span is right when both ends are."""
    def spans(starts):
        out, begin = set(), 0
        for i in range(1, len(starts) + 1):
            if i == len(starts) or starts[i]:
                out.add((begin, i))
                begin = i
        return out
    right = found = wanted = 0
    offset = 0
    for gold, pred in zip(gold_starts, predicted_starts):
        g = {(a + offset, b + offset) for a, b in spans(gold)}
        p = {(a + offset, b + offset) for a, b in spans([True] + list(pred[1:]))}
        right, found, wanted = right + len(g & p), found + len(p), wanted + len(g)
        offset += len(gold)
    return 2 * right / (found + wanted)


@pytest.fixture(scope="module")
def trained():
    nlp = spacy.blank("la")
    nlp.add_pipe("planar_senter", name="senter", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": {
        "@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 64, "depth": 2,
        "embed_size": 2000, "window_size": 1, "maxout_pieces": 2, "subword_features": True}}})
    train = examples(nlp, "train", 240)
    sgd = nlp.initialize(lambda: train)
    untrained = nlp.evaluate(examples(nlp, "dev", 60))["sents_f"]
    sgd.learn_rate = 0.003
    rng = random.Random(0)
    for _ in range(3):
        rng.shuffle(train)
        for i in range(0, len(train), 8):
            nlp.update(train[i:i + 8], sgd=sgd)
    return nlp, untrained


def test_the_dev_score_is_the_splitters_own(trained):
    """On dev Examples of five gold sentences each (the parser keeps the
    gold sentences), the score is the F-score of what the splitter
    predicted, computed here by hand from its model's output, where
    spaCy's scorer gives 100; it grows as the splitter learns (0.92-0.97
    after these three epochs)."""
    trained, untrained = trained
    dev = examples(trained, "dev", 60)
    senter = trained.get_pipe("senter")
    predicted = [numpy.asarray(ids) == 1 for ids in senter.predict([eg.predicted for eg in dev])]
    scores = trained.evaluate(dev)
    gold = [[bool(t.is_sent_start) for t in eg.reference] for eg in dev]
    assert scores["sents_f"] == pytest.approx(f_score(gold, predicted))
    assert untrained < 0.5 < 0.8 < scores["sents_f"]
    assert Scorer.score_spans(dev, "sents")["sents_f"] == 1.0  # spaCy's senter_scorer: the gold sentences
    # the parser's scorer, whose sents_f Language.evaluate prints over the senter's, gives the same figure
    from spacy_planar.parser.shared.scorer import planar_parser_score
    parsed = [Example(doc, eg.reference) for doc, eg in zip(trained.pipe(eg.predicted for eg in dev), dev)]
    assert planar_parser_score(parsed)["sents_f"] == scores["sents_f"]
    for eg in dev:  # the gold sentences stay the Doc's
        assert [t.is_sent_start for t in eg.predicted] == [t.is_sent_start for t in eg.reference]


def test_it_annotates_as_spacys_senter(trained):
    """Where a Doc has no sentences the splitter's are set and nothing is
    kept aside; its weights in spaCy's senter split every Doc alike."""
    trained, _ = trained
    spacys = spacy.blank("la")
    spacys.add_pipe("senter", config={"model": trained.get_pipe_config("senter")["model"]})
    spacys.initialize(lambda: examples(spacys, "train", 20))
    spacys.get_pipe("senter").from_bytes(trained.get_pipe("senter").to_bytes())
    texts = [eg.reference.text for eg in examples(trained, "test", 60)]
    ours, theirs = list(trained.pipe(texts)), list(spacys.pipe(texts))
    assert [[t.is_sent_start for t in d] for d in ours] == [[t.is_sent_start for t in d] for d in theirs]
    assert all(PREDICTED_KEY not in d.user_data for d in ours)
    assert sum(len(list(d.sents)) for d in ours) > len(ours)  # it does split


def test_without_kept_predictions_the_docs_sentences_are_scored(trained):
    """A Doc the splitter never saw is scored on its own sentences, as
    spaCy's scorer does."""
    trained, _ = trained
    dev = examples(trained, "dev", 10)
    for eg in dev:
        eg.predicted.user_data.pop(PREDICTED_KEY, None)
    assert senter_score(dev)["sents_f"] == 1.0
    words = Doc(trained.vocab, words=["a", "b"])
    assert senter_score([Example(words, words.copy())])["sents_f"] is None


def test_kept_starts_that_do_not_fit_the_doc_are_reported():
    """Kept starts of another length than the Doc (never expected: the
    senter keeps one a token) are not read silently: W126, raised when
    debugging (as every test runs)."""
    from spacy_planar.errors import UnexpectedError
    from spacy_planar.io.doc_trees import predicted_starts

    doc = Doc(spacy.blank("la").vocab, words=["a", "b", "c"])
    doc.user_data[PREDICTED_KEY] = [True, False]
    with pytest.raises(UnexpectedError, match="W126"):
        predicted_starts(doc)
