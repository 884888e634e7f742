"""What a new user met (issue of 2026-12-07): an interrupted training says which step model-best
holds (and that step 0's is untrained), `train --help` says how long and how to shorten it, a
multilingual config on a treebank named for a language says so in one line, and a sentence given
as words parses in Python as `spacy-planar parse` parses it."""
from pathlib import Path

import spacy
from conftest import fixture_path, sample, small_parser
from thinc.api import Config
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.io.conllu import read_conllu


def test_an_interrupted_training_says_which_step_model_best_holds(tmp_path):
    from spacy_planar.cli.train import unfinished
    from spacy_planar.io.progress import FINISHED

    (tmp_path / "model-best").mkdir()
    FINISHED["checkpoints"] = [(0.0152, 0)]
    said = unfinished(tmp_path, created=False)
    assert "untrained pipeline (step 0, score 0.02)" in said and "best" not in said.split(":")[-1]
    FINISHED["checkpoints"] = [(0.0152, 0), (0.61, 200), (0.58, 400)]
    assert "step 200's pipeline (score 0.61), the best of 3 evaluations" in unfinished(tmp_path, created=False)
    FINISHED.clear()
    assert "no evaluation of this run" in unfinished(tmp_path, created=False)


def test_train_help_says_how_long_and_how_to_shorten_it():
    r = CliRunner().invoke(app, ["train", "--help"], terminal_width=200)
    text = " ".join(r.output.split())
    assert r.exit_code == 0
    for said in ("--training.max_epochs", "--training.max_steps", "max_steps", "20000", "patience"):
        assert said in text, said


def test_a_multilingual_config_on_a_latin_treebank_names_its_language():
    from spacy_planar.cli.train import language_named

    config = Config({"nlp": {"lang": "xx"}, "paths": {"train": "corpus/la_ittb/train.spacy"}})
    assert language_named(config, {}) == "la"
    assert language_named(config, {"nlp.lang": "la"}) is None
    assert language_named(Config({"nlp": {"lang": "la"}, "paths": {"train": "x/la_ittb/train.spacy"}}), {}) is None
    assert language_named(Config({"nlp": {"lang": "xx"}, "paths": {"train": "mine/train.spacy"}}), {}) is None


def test_parse_words_gives_the_trees_parse_writes(tmp_path):
    """``spacy_planar.parse_words`` of each sentence's words: the heads and labels that
    ``spacy-planar parse`` writes for the CoNLL-U sentence."""
    import spacy_planar

    model = small_parser(tmp_path / "model", 30, epochs=3)
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 8)
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(tmp_path / "out.conllu")])
    assert r.exit_code == 0, r.output
    nlp = spacy.load(model)
    for sent in read_conllu(Path(tmp_path / "out.conllu")):
        doc = spacy_planar.parse_words(nlp, sent.forms)
        assert [t.head.i - t.i if t.head.i != t.i else None for t in doc] == \
               [h - 1 - i if h else None for i, h in enumerate(sent.heads)]
        assert [t.dep_ for t in doc] == list(sent.deprels)
