"""`spacy-planar vectors`: floret vectors from a treebank's own text, used by a shipped config."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from conftest import treebank
from spacy_planar.cli import app

floret = pytest.importorskip("floret")
runner = CliRunner()


@pytest.fixture(scope="module")
def vectors_dir(tmp_path_factory):
    """Small floret vectors (16 wide, skipgram, 30 passes) of got_proiel's training text."""
    out = tmp_path_factory.mktemp("vec") / "vectors"
    res = runner.invoke(app, ["vectors", str(out), str(treebank("got_proiel")), "--dim", "16", "--epochs", "30",
                              "--bucket", "5000", "--model", "skipgram"])
    assert res.exit_code == 0, res.output
    assert "35,024 words" in res.output
    return out


def test_vectors_are_floret_and_cover_unseen_forms(vectors_dir):
    nlp = spacy.load(vectors_dir)
    vectors = nlp.vocab.vectors
    assert vectors.mode == "floret" and vectors.shape == (5000, 16)
    assert vectors.minn == 3 and vectors.maxn == 5 and vectors.hash_count == 2
    seen, unseen = nlp.vocab["guþ"].vector, nlp.vocab["guþiza"].vector  # "guþiza" is not in the text
    assert np.abs(unseen).sum() > 0 and not np.allclose(seen, unseen)  # its n-grams give it a vector
    assert float(vectors.data.std(axis=0).min()) > 0  # trained rows, not one row repeated


def test_a_shipped_config_trains_with_the_vectors(vectors_dir, tmp_path):
    corpus = tmp_path / "train.spacy"
    assert runner.invoke(app, ["convert", str(treebank("got_proiel", "dev")), str(corpus)]).exit_code == 0
    config = Path(__file__).resolve().parents[1] / "configs" / "two_planar.cfg"
    cmd = [sys.executable, "-m", "spacy", "train", str(config), "--output", str(tmp_path / "out"),
           "--paths.train", str(corpus), "--paths.dev", str(corpus), "--paths.vectors", str(vectors_dir),
           "--components.tok2vec.model.embed.embed.include_static_vectors", "true",
           "--training.max_steps", "4", "--training.eval_frequency", "2"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.vocab.vectors.mode == "floret" and nlp.vocab.vectors.shape == (5000, 16)
    doc = nlp("jah qaþ imma .")
    assert sum(t.head == t for t in doc) == 1


def test_bad_input_is_one_line(tmp_path, vectors_dir):
    missing = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(tmp_path / "none.conllu")])
    assert missing.exit_code == 1 and not (tmp_path / "v").exists()
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    r = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(empty)])
    assert r.exit_code == 1 and "E034" in r.output and not (tmp_path / "v").exists()
    r = runner.invoke(app, ["vectors", str(vectors_dir), str(empty)])
    assert r.exit_code == 1 and "E033" in r.output
