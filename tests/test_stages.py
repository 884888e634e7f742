"""Training in two stages (spacy_planar/stages.py, `init-config --taggers-first`):
the taggers first, then the parser on their predictions, by one command."""
import subprocess
import sys
from pathlib import Path

import numpy
import spacy
from conftest import first_docs, fixture_path
from spacy.tokens import Doc, DocBin
from thinc.api import Config

from spacy_planar.corpus.files import given_sentences
from spacy_planar.ud.stages import first_stage, first_stage_components, second_stage


def _config(tmp_path, *flags) -> Path:
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    out = tmp_path / "config.cfg"
    r = CliRunner().invoke(app, ["init-config", "arc_eager", str(out), "--tagging", *flags])
    assert r.exit_code == 0, r.output
    return out


def test_a_config_freezing_what_it_builds_has_two_stages(tmp_path):
    config = Config().from_disk(_config(tmp_path, "--taggers-first"), interpolate=False)
    taggers = ["tok2vec", "morphologizer", "tagger", "lemmatizer"]
    assert first_stage_components(config) == taggers
    first = first_stage(config)
    assert first["nlp"]["pipeline"] == taggers and set(first["components"]) == set(taggers)
    assert first["training"]["frozen_components"] == first["training"]["annotating_components"] == []
    # model-best is the best tagger: UPOS, FEATS, XPOS and LEMMA alike, none of the parser's scores
    assert first["training"]["score_weights"] == {"lemma_acc": 0.25, "morph_acc": 0.25, "pos_acc": 0.25,
                                                  "tag_acc": 0.25}
    second = second_stage(config, tmp_path / "first", ["tok2vec", "morphologizer"])  # no XPOS, no LEMMA
    assert second["nlp"]["pipeline"] == ["multiword_tokens", "senter", "tok2vec", "morphologizer", "planar_parser"]
    assert second["components"]["tok2vec"] == {"source": str(tmp_path / "first")}
    assert "tagger" not in second["components"] and "lemmatizer" not in second["components"]
    assert second["training"]["frozen_components"] == ["tok2vec", "morphologizer"]
    # the parser has an encoder of its own and reads the predicted morphology
    parser_t2v = second["components"]["planar_parser"]["model"]["tok2vec"]
    assert parser_t2v["@architectures"] == "spacy-planar.WithMorphology.v1"
    assert parser_t2v["tok2vec"]["@architectures"] == "spacy-planar.Tok2Vec.v1"
    # the shipped UD pipeline trains in one stage
    assert first_stage(Config().from_disk(_config(tmp_path), interpolate=False)) is None


def test_taggers_first_trains_both_stages_by_one_command(tmp_path):
    """`spacy-planar train` on a --taggers-first config trains the taggers
    into OUT/first_stage, then the parser with them frozen: the final
    pipeline's taggers predict exactly what the first stage's best did."""

    corpus = tmp_path / "small.spacy"
    docs = first_docs(fixture_path(), spacy.blank("xx").vocab, 60)
    DocBin(store_user_data=True, docs=docs).to_disk(corpus)
    out = tmp_path / "out"
    shipped = Path(__file__).resolve().parents[1] / "configs" / "ud_taggers_first.cfg"
    cmd = [sys.executable, "-m", "spacy_planar", "train", str(shipped), "--output",
           str(out), "--paths.train", str(corpus), "--paths.dev", str(corpus), "--training.max_steps", "8",
           "--training.eval_frequency", "4"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "Stage 1 of 2: tok2vec, morphologizer, tagger, lemmatizer" in res.stdout
    first = spacy.load(out / "first_stage" / "model-best")
    final = spacy.load(out / "model-best")
    assert final.pipe_names == ["multiword_tokens", "senter", "tok2vec", "morphologizer", "tagger",
                                "lemmatizer", "planar_parser"]
    words = [[t.text for t in d] for d in docs[:20]]
    for a, b in zip(first.pipe(Doc(first.vocab, words=w) for w in words),
                    given_sentences(final, (Doc(final.vocab, words=w) for w in words))):
        assert ([(t.pos_, t.tag_, str(t.morph), t.lemma_) for t in a]
                == [(t.pos_, t.tag_, str(t.morph), t.lemma_) for t in b])
        assert sum(t.head == t for t in b) == 1
    # the shared tok2vec the taggers listen to is the first stage's, weight for weight

    def weights(model):
        return [node.get_param(name) for node in model.walk() for name in node.param_names if node.has_param(name)]

    frozen, trained = weights(first.get_pipe("tok2vec").model), weights(final.get_pipe("tok2vec").model)
    assert len(frozen) == len(trained) > 0 and all(numpy.array_equal(a, b) for a, b in zip(frozen, trained))

def test_spacy_train_refuses_a_config_in_two_stages(tmp_path):
    """spacy train on configs/ud_taggers_first.cfg would train the parser on
    taggers never trained: it stops with E124, naming spacy-planar train."""
    corpus = tmp_path / "small.spacy"

    DocBin(docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 20)).to_disk(corpus)
    shipped = Path(__file__).resolve().parents[1] / "configs" / "ud_taggers_first.cfg"
    res = subprocess.run([sys.executable, "-m", "spacy", "train", str(shipped), "--output", str(tmp_path / "out"),
                          "--paths.train", str(corpus), "--paths.dev", str(corpus)], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode != 0 and "E124" in res.stderr and "spacy-planar train" in res.stderr
    assert not (tmp_path / "out" / "model-last").exists()


def test_taggers_first_needs_the_taggers(tmp_path):
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    r = CliRunner().invoke(app, ["init-config", "arc_eager", str(tmp_path / "x.cfg"), "--taggers-first"])
    assert r.exit_code == 1 and "E122" in r.output and not (tmp_path / "x.cfg").exists()


def test_the_biaffine_parser_reads_the_taggers_output_too(tmp_path):
    """`init-config biaffine --tagging --taggers-first`: the graph-based parser, like the
    transition parser, gets an encoder of its own reading the predicted morphology, and both
    stages train by one command."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    config_path = tmp_path / "bf.cfg"
    r = CliRunner().invoke(app, ["init-config", "biaffine", str(config_path), "--tagging", "--taggers-first"])
    assert r.exit_code == 0, r.output
    config = Config().from_disk(config_path, interpolate=False)
    second = second_stage(config, tmp_path / "first", ["tok2vec", "morphologizer"])
    assert second["components"]["biaffine_parser"]["model"]["tok2vec"]["@architectures"] == \
        "spacy-planar.WithMorphology.v1"
    corpus = tmp_path / "small.spacy"
    DocBin(store_user_data=True, docs=first_docs(fixture_path(), spacy.blank("xx").vocab, 20)).to_disk(corpus)
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "train", str(config_path), "--output",
                          str(tmp_path / "out"), "--paths.train", str(corpus), "--paths.dev", str(corpus),
                          "--training.max_steps", "4", "--training.eval_frequency", "2"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    final = spacy.load(tmp_path / "out" / "model-best")
    assert final.pipe_names[-1] == "biaffine_parser"
    words = [t.text for t in first_docs(fixture_path(), final.vocab, 1)[0]]
    (doc,) = given_sentences(final, [Doc(final.vocab, words=words)])
    assert sum(t.head == t for t in doc) == 1
