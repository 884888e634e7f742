"""`spacy-planar vectors`: floret vectors from a treebank's own text, used by a shipped config."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spacy
from conftest import fixture_path, sample
from typer.testing import CliRunner

from spacy_planar.__main__ import app

floret = pytest.importorskip("floret")
runner = CliRunner()


@pytest.fixture(scope="module")
def vectors_dir(tmp_path_factory):
    """Small floret vectors (16 wide, skipgram, 30 passes) of the test treebank's training text."""
    out = tmp_path_factory.mktemp("vec") / "vectors"
    res = runner.invoke(app, ["vectors", str(out), str(fixture_path()), "--dim", "16", "--epochs", "30",
                              "--bucket", "5000", "--model", "skipgram", "--min-count", "1", "--threads", "1"])
    assert res.exit_code == 0, res.output
    assert "5,745 words" in res.output
    return out


def test_vectors_are_floret_and_cover_unseen_forms(vectors_dir):
    nlp = spacy.load(vectors_dir)
    vectors = nlp.vocab.vectors
    assert vectors.mode == "floret" and vectors.shape == (5000, 16)
    assert vectors.minn == 3 and vectors.maxn == 5 and vectors.hash_count == 2
    seen, unseen = nlp.vocab["amorem"].vector, nlp.vocab["amoribus"].vector  # "amoribus" is not in the text
    assert np.abs(unseen).sum() > 0 and not np.allclose(seen, unseen)  # its n-grams give it a vector
    assert float(vectors.data.std(axis=0).min()) > 0  # trained rows, not one row repeated


def test_a_shipped_config_takes_the_vectors_with_one_flag(vectors_dir, tmp_path):
    """`--paths.vectors DIR`: the tok2vec reads the vectors (CharEmbed.v3's
    static_vectors layer, its projection trained); they travel with the
    pipeline, which encodes as it did once saved and loaded again."""
    import shutil

    from spacy.tokens import Doc

    corpus = tmp_path / "train.spacy"
    dev = sample(fixture_path("dev"), tmp_path / "dev.conllu", 80)
    assert runner.invoke(app, ["convert", str(dev), str(corpus)]).exit_code == 0
    vectors = shutil.copytree(vectors_dir, tmp_path / "vectors")
    config = Path(__file__).resolve().parents[1] / "configs" / "two_planar.cfg"
    cmd = [sys.executable, "-m", "spacy_planar", "train", str(config), "--output", str(tmp_path / "out"),
           "--paths.train", str(corpus), "--paths.dev", str(corpus), "--paths.vectors", str(vectors),
           "--training.max_steps", "4", "--training.eval_frequency", "2"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.vocab.vectors.mode == "floret" and nlp.vocab.vectors.shape == (5000, 16)
    encoder = nlp.get_pipe("tok2vec").model
    layers = [node for node in encoder.walk() if node.name == "static_vectors"]
    assert len(layers) == 1 and layers[0].get_param("W").shape == (96, 16)
    words = "jah qaþ imma Iesus : gaggais mis afar .".split()
    before = encoder.predict([Doc(nlp.vocab, words=words)])[0]
    nlp.to_disk(tmp_path / "saved")
    shutil.rmtree(vectors)
    again = spacy.load(tmp_path / "saved")
    assert np.allclose(again.get_pipe("tok2vec").model.predict([Doc(again.vocab, words=words)])[0], before)
    doc = again("jah qaþ imma .")
    assert sum(t.head == t for t in doc) == 1


def test_without_vectors_the_layer_is_not_built():
    from thinc.api import Config

    from spacy_planar.model.static_vectors import build_static_vectors  # noqa: F401 (registered with chars)

    config = Config().from_disk(Path(__file__).resolve().parents[1] / "configs" / "ud.cfg")
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    assert not [n for n in nlp.get_pipe("tok2vec").model.walk() if n.name == "static_vectors"]


def test_a_folder_without_vectors_is_one_line(tmp_path):
    """--paths.vectors naming a pipeline without vectors, or no pipeline at all."""
    blank = tmp_path / "blank"
    spacy.blank("xx").to_disk(blank)
    config = Path(__file__).resolve().parents[1] / "configs" / "ud.cfg"
    for path in (blank, tmp_path):
        r = runner.invoke(app, ["train", str(config), "--output", str(tmp_path / "out"), "--paths.vectors", str(path)])
        assert r.exit_code == 1 and "E111" in r.output and str(path) in r.output, r.output
        assert not (tmp_path / "out").exists()


def test_words_are_looked_up_by_their_nfc_form(vectors_dir):
    """A decomposed word form (as raw Greek corpora write them) gets the
    vector of its NFC form, which the vectors were trained on."""
    import unicodedata

    from spacy_planar.model.static_vectors import word_vectors

    nlp = spacy.load(vectors_dir)
    composed = "ἐδύνατο"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    keys = [nlp.vocab.strings.add(composed), nlp.vocab.strings.add(decomposed), nlp.vocab.strings.add("guþ")]
    rows = word_vectors(nlp.vocab, keys)
    assert np.allclose(rows[0], rows[1]) and not np.allclose(rows[0], rows[2])


def test_bad_input_is_one_line(tmp_path, vectors_dir):
    missing = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(tmp_path / "none.conllu")])
    assert missing.exit_code == 1 and not (tmp_path / "v").exists()
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    r = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(empty)])
    assert r.exit_code == 1 and "E034" in r.output and not (tmp_path / "v").exists()
    r = runner.invoke(app, ["vectors", str(vectors_dir), str(empty)])
    assert r.exit_code == 1 and "E033" in r.output


def test_a_corpus_as_users_have_it(tmp_path, vectors_dir):
    """Plain, .xz and .gz files and a folder of them; NFC; the tokenizer's
    words; lines sharing five words with held-out text left out, and
    counted."""
    import gzip
    import lzma
    import unicodedata

    from spacy_planar.io.raw_text import Corpus

    folder = tmp_path / "texts"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("Gallia est omnis divisa in partes tres.\n\n", encoding="utf-8")
    with lzma.open(folder / "sub" / "b.txt.xz", "wt", encoding="utf-8") as f:
        f.write(unicodedata.normalize("NFD", "ὃ μὲν δὴ ὡς οὐκ ἐδύνατο") + "\n")
    with gzip.open(tmp_path / "c.txt.gz", "wt", encoding="utf-8") as f:
        f.write("Quo usque tandem abutere, Catilina, patientia nostra?\narma virumque cano\n")
    held_out = tmp_path / "test.txt"
    held_out.write_text("QUO usque tandem abutere Catilina\n", encoding="utf-8")
    corpus = Corpus([folder, tmp_path / "c.txt.gz"], spacy.blank("la").tokenizer, exclude=[held_out])
    lines = list(corpus)
    assert lines == ["Gallia est omnis divisa in partes tres .", "ὃ μὲν δὴ ὡς οὐκ ἐδύνατο", "arma virumque cano"]
    assert lines[1] == unicodedata.normalize("NFC", lines[1])
    assert (corpus.words, corpus.lines, corpus.excluded_lines) == (17, 3, 1)
    out = tmp_path / "vec"
    r = runner.invoke(app, ["vectors", str(out), str(folder), str(tmp_path / "c.txt.gz"), "--exclude", str(held_out),
                            "--dim", "8", "--bucket", "1000", "--min-count", "1", "--threads", "1", "--lang", "la"])
    assert r.exit_code == 0, r.output
    assert "17 words in 3 lines from 3 file(s); 1 lines (7 words) left out" in " ".join(r.output.split())
    meta = spacy.load(out).meta["spacy_planar_vectors"]
    assert meta["normalization"] == "NFC" and meta["excluded_lines"] == 1 and meta["floret"]["dim"] == 8


def test_a_greek_capital_breathing_written_before_it():
    from spacy_planar.io.raw_text import nfc

    assert nfc("\u0313\u0391λλ\u0313, ὦ δέσποτα") == "Ἀλλ\u0313, ὦ δέσποτα"


def test_unreadable_text_is_one_line(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("arma\nvirumque cano Troi\xe6\n".encode("latin-1"))
    r = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(bad)])
    assert r.exit_code == 1 and "latin1.txt:2" in r.output and "E001" in r.output and not (tmp_path / "v").exists()
    broken = tmp_path / "broken.txt.xz"
    broken.write_bytes(b"not xz at all")
    r = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(broken)])
    assert r.exit_code == 1 and "broken.txt.xz" in r.output and "E113" in r.output
    r = runner.invoke(app, ["vectors", str(tmp_path / "v"), str(bad), "--dim", "0"])
    assert r.exit_code == 1 and "E112" in r.output


def test_the_pipeline_takes_the_vectors_language_or_says_why_not(vectors_dir, tmp_path):
    """spacy-planar train: a shipped config (multilingual, xx) takes the
    vectors' language in one line; a pipeline of another language set by
    the user is one line (E131), not spaCy's E150 traceback."""
    import json
    import shutil

    from spacy_planar.cli._app import read_config
    from spacy_planar.cli.train import language_of
    from spacy_planar.errors import UserError

    latin = tmp_path / "la_vectors"
    shutil.copytree(vectors_dir, latin)
    meta = json.loads((latin / "meta.json").read_text(encoding="utf-8"))
    (latin / "meta.json").write_text(json.dumps({**meta, "lang": "la"}), encoding="utf-8")
    ud = Path(__file__).resolve().parents[1] / "configs" / "ud.cfg"
    config = read_config(ud)
    assert language_of(config, {}, str(vectors_dir)) == {}  # both xx
    assert language_of(config, {}, str(latin)) == {"nlp.lang": "la"}
    assert language_of(config, {"nlp.lang": "la"}, str(latin)) == {}
    with pytest.raises(UserError, match=r"\[E131\] .*'la', the pipeline of 'hu'"):
        language_of(config, {"nlp.lang": "hu"}, str(latin))
    r = runner.invoke(app, ["train", str(ud), "--output", str(tmp_path / "out"), "--paths.vectors", str(latin),
                            "--nlp.lang", "hu", "--paths.train", "x", "--paths.dev", "x"])
    assert r.exit_code == 1 and "E131" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "out").exists()


def test_vectors_off_a_terminal_say_what_they_do(tmp_path):
    """Run by a script (stderr not a terminal), `vectors` says how much text
    it read and about how long floret will take, before it trains."""
    text = sample(fixture_path(), tmp_path / "t.conllu", 200)
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "vectors", str(tmp_path / "v"), str(text), "--dim",
                          "8", "--epochs", "1", "--bucket", "1000", "--threads", "1"], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    said = " ".join((res.stdout + res.stderr).split())  # wasabi wraps at 80 columns
    assert "words in 200 lines" in said and "Training floret (cbow, 1 epochs, 1 thread(s)): about 1 minute (" in said
    assert "Over 60 lines" not in runner.invoke(app, ["vectors", "--help"]).output
