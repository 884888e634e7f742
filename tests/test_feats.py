"""``feature_morphologizer``: UPOS and each FEATS attribute predicted apart."""
from collections import Counter

import pytest
import spacy
from conftest import first_docs, fixture_path
from spacy.tokens import Doc
from spacy.training import Example

N_TRAIN, N_HELD_OUT, EPOCHS = 400, 200, 6


def words_only(nlp, doc):
    return Doc(nlp.vocab, words=[t.text for t in doc])


@pytest.fixture(scope="module")
def trained():
    nlp = spacy.blank("xx")
    train = first_docs(fixture_path(), nlp.vocab, N_TRAIN)
    held_out = first_docs(fixture_path("dev"), nlp.vocab, N_HELD_OUT)
    nlp.add_pipe("feature_morphologizer")
    examples = [Example(words_only(nlp, d), d) for d in train]
    sgd = nlp.initialize(lambda: examples)
    for _ in range(EPOCHS):
        for i in range(0, len(examples), 32):
            nlp.update(examples[i:i + 32], sgd=sgd)
    return nlp, train, held_out


def test_it_beats_each_attributes_most_frequent_value(trained):
    """On held-out words: UPOS and the whole FEATS right more often than the
    baseline that gives every word each attribute's most frequent value
    (none included) in training."""
    nlp, train, held_out = trained
    pipe = nlp.get_pipe("feature_morphologizer")
    attrs = [a for a in pipe.cfg["attributes"] if a != "POS"]
    counts = {a: Counter(t.morph.to_dict().get(a, "") for d in train for t in d) for a in attrs}
    common = {a: c.most_common(1)[0][0] for a, c in counts.items()}
    baseline = "|".join(f"{a}={v}" for a, v in sorted(common.items()) if v)
    common_pos = Counter(t.pos_ for d in train for t in d).most_common(1)[0][0]
    scores = nlp.evaluate([Example(words_only(nlp, d), d) for d in held_out])
    words = [t for d in held_out for t in d]
    base_pos = sum(t.pos_ == common_pos for t in words) / len(words)
    base_feats = sum(str(t.morph) == baseline for t in words) / len(words)
    assert scores["pos_acc"] > base_pos + 0.3, (scores["pos_acc"], base_pos)
    assert scores["morph_acc"] > base_feats + 0.2, (scores["morph_acc"], base_feats)


def test_each_attribute_is_a_softmax_of_its_own(trained):
    """The scores of each attribute's values, none first, are one softmax:
    every word gets exactly one value of each attribute, and the FEATS it
    writes are the attributes whose value is not none."""
    nlp, _, held_out = trained
    pipe = nlp.get_pipe("feature_morphologizer")
    docs = [words_only(nlp, d) for d in held_out[:20]]
    rows = pipe.predict(docs)
    pipe.set_annotations(docs, rows)
    attrs, bounds, _ = pipe.columns
    assert bounds[-1] == pipe.model.get_ref("output_layer").get_dim("nO")
    for doc, doc_rows in zip(docs, rows):
        assert doc_rows.shape == (len(doc), len(attrs))
        for token, row in zip(doc, doc_rows.tolist()):
            values = {a: pipe.cfg["attributes"][a][v] for a, v in zip(attrs, row)}
            assert token.pos_ == values["POS"]
            assert token.morph.to_dict() == {a: v for a, v in values.items() if a != "POS" and v}


def test_words_without_annotation_add_no_loss(trained):
    """A Doc whose gold has neither UPOS nor FEATS trains nothing: loss 0
    and a zero gradient."""
    nlp, train, _ = trained
    pipe = nlp.get_pipe("feature_morphologizer")
    bare = Doc(nlp.vocab, words=[t.text for t in train[0]])
    eg = Example(words_only(nlp, train[0]), bare)
    loss, grads = pipe.get_loss([eg], pipe.model.predict([eg.predicted]))
    assert loss == 0.0 and float(abs(grads[0]).sum()) == 0.0
    annotated = Example(words_only(nlp, train[0]), train[0])
    assert pipe.get_loss([annotated], pipe.model.predict([annotated.predicted]))[0] > 0.0


def test_round_trip(trained, tmp_path):
    nlp, _, held_out = trained
    nlp.to_disk(tmp_path / "nlp")
    again = spacy.load(tmp_path / "nlp")
    for d in held_out[:30]:
        a, b = nlp(words_only(nlp, d)), again(words_only(again, d))
        assert [(t.pos_, str(t.morph)) for t in a] == [(t.pos_, str(t.morph)) for t in b]
