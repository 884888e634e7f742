"""Memory that grows with the input is bounded (issue 89): the biaffine's label scores in chunks,
the word encoders' caches of forms, the transition parser's oracle cache in training."""
import tracemalloc

import numpy as np
import pytest
import spacy
from conftest import shortest_docs
from spacy.tokens import Doc
from spacy.training import Example


def _label_peak(monkeypatch, chunk_floats: int):
    """Peak bytes numpy allocates to score and backpropagate the labels of 3,000 arcs (60 labels,
    width 100: their (pairs, labels, width) products are 72 MB at once), and the scores."""
    from thinc.api import Model

    from spacy_planar.parser.graph import biaffine
    from spacy_planar.parser.graph.biaffine import BIAFFINE_PARAMS, GraphScorer, _biaffine_init, biaffine_forward

    monkeypatch.setattr(biaffine, "LABEL_CHUNK_FLOATS", chunk_floats)
    a, b, labels, words, pairs = 8, 100, 60, 400, 3000
    model = Model("biaffine", biaffine_forward, init=_biaffine_init,
                  dims={"nA": a, "nB": b, "nP": 0, "nO": labels}, params={name: None for name in BIAFFINE_PARAMS})
    model.initialize()
    rng = np.random.default_rng(0)
    scorer = GraphScorer(model, rng.normal(size=(words, 2 * a + 2 * b)).astype("float32"))
    deps, heads = rng.integers(0, words, pairs), rng.integers(0, words, pairs)
    tracemalloc.start()
    try:
        S, backprop = scorer.labels(deps, heads)
        backprop(np.ones_like(S))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, S, {name: model.get_grad(name).copy() for name in ("Ul", "Wl", "bl")}


def test_the_biaffines_label_scores_run_in_bounded_chunks(monkeypatch):
    peak_all, S_all, grads_all = _label_peak(monkeypatch, 1 << 40)  # one chunk: the whole product
    peak, S, grads = _label_peak(monkeypatch, 1 << 20)  # 4 MB chunks
    assert peak_all > 72e6  # unbounded, the (pairs, labels, width) product is held
    assert peak < 30e6  # chunked: the chunks, the scores (0.7 MB) and the gradients' own sizes
    np.testing.assert_allclose(S, S_all, rtol=1e-4, atol=1e-4)
    for name in grads:
        np.testing.assert_allclose(grads[name], grads_all[name], rtol=1e-3, atol=1e-3)


def test_a_word_encoders_cache_of_forms_is_bounded(monkeypatch):
    from spacy_planar.model import per_word

    monkeypatch.setattr(per_word, "CACHE_LIMIT", 50)
    cache = {}
    for batch in range(10):  # 40 new forms a batch, 400 in all
        keys = np.arange(batch * 40, batch * 40 + 40, dtype=np.uint64).repeat(2)
        rows, present = per_word.cached_rows(keys, cache, lambda k: np.arange(k % 5 + 1, dtype=np.uint64) + k)
        assert len(cache) <= 50
        for key, row, mask in zip(keys.tolist(), rows, present):  # each word's row is still its own
            assert row[mask].tolist() == (np.arange(key % 5 + 1) + key).tolist()


@pytest.mark.parametrize("bounded", [False, True])
def test_the_oracle_cache_of_training_is_bounded(bounded, monkeypatch):
    from spacy_planar.parser.transition import training

    if bounded:
        monkeypatch.setattr(training, "CACHE_BYTES", 1)  # any batch passes it: the cache holds the last batch
    nlp = spacy.blank("xx")
    parser = nlp.add_pipe("planar_parser", config={"exploration": 0.0})  # every unit the static oracle's
    docs = shortest_docs(nlp.vocab, 24)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    sgd = nlp.initialize(lambda: examples)
    for start in range(0, 24, 8):
        nlp.update(examples[start:start + 8], sgd=sgd)
    assert len(parser.trainer.cache) == (8 if bounded else 24)
    assert parser.trainer.cached_bytes == sum(x.nbytes for units in parser.trainer.cache.values()
                                              for unit in units for x in unit[1:])


def test_bench_memory_generates_the_corpus_and_reads_the_peak(tmp_path):
    """``lab bench memory``: the generated corpus has the words asked for, the new forms' share,
    and parse-corpus's peak memory is read from its process."""
    import json

    from conftest import fixture_path, small_parser
    from spacy_planar_lab.bench_memory import generated_corpus
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.io.conllu import read_conllu

    sentences = [s.forms for s in read_conllu(fixture_path())]
    written = generated_corpus(sentences, 3000, 3, 0.5, tmp_path / "corpus")
    texts = [p.read_text(encoding="utf-8").split() for p in sorted((tmp_path / "corpus").glob("*.txt"))]
    assert len(texts) == 3 and sum(map(len, texts)) == written and 3000 <= written < 3000 + max(map(len, sentences))
    known = {w for s in sentences for w in s}
    new = sum(w not in known for t in texts for w in t) / written
    assert 0.4 < new < 0.6
    # more files than the words fill evenly: every file holds a sentence (parse-corpus refuses an empty one)
    generated_corpus(sentences, 200, 20, 0.5, tmp_path / "many")
    assert all(p.read_text(encoding="utf-8").split() for p in (tmp_path / "many").glob("*.txt"))
    assert len(list((tmp_path / "many").glob("*.txt"))) == 20
    model = small_parser(tmp_path / "model", 10, epochs=1)
    r = CliRunner().invoke(app, ["lab", "bench", "memory", str(model), str(fixture_path()), "--words", "300",
                                 "--files", "2", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.output[r.output.index("{"):]).values()
    assert 300 <= row["words"] and 50 < row["peak_mb"] < 4000 and row["seconds"] > 0
