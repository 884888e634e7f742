"""The way in for a new user: training that always ends with a scored model-best and says
how long it took, CoNLL-U straight into training, stopping by SIGTERM as by Ctrl-C, piped
output without colour codes or temporary paths, an output that cannot be written named as
given, and the surface form of each multiword token's words."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from conftest import fixture_path, sample, small_parser
from typer.testing import CliRunner

from spacy_planar.__main__ import app

ROOT = Path(__file__).resolve().parents[1]
UD = ROOT / "configs" / "ud.cfg"


def test_a_training_shorter_than_one_evaluation_ends_with_a_scored_model_best(tmp_path):
    """One epoch of 60 sentences is 12 steps, the first evaluation after step 0 comes at 200: the
    final evaluation scores model-last, which becomes model-best where it beats step 0 (else a
    warning says model-best is the untrained pipeline); the total time is printed. CoNLL-U is
    read as --paths.train and --paths.dev."""
    import re

    train, dev = sample(fixture_path(), tmp_path / "train.conllu", 60), sample(fixture_path("dev"),
                                                                               tmp_path / "dev.conllu", 20)
    r = CliRunner().invoke(app, ["train", str(UD), "--output", str(tmp_path / "out"), "--paths.train", str(train),
                                 "--paths.dev", str(dev), "--training.max_epochs", "1"])
    assert r.exit_code == 0, r.output
    final = next(line for line in r.output.splitlines() if line.startswith("Training took"))
    assert re.match(r"Training took 0:\d\d:\d\d; model-last \(the last step\) scored \d", final), final
    best = spacy.load(tmp_path / "out" / "model-best")
    last = spacy.load(tmp_path / "out" / "model-last")
    same = best.get_pipe("planar_parser").model.to_bytes() == last.get_pipe("planar_parser").model.to_bytes()
    assert same == ("it is model-best" in final)
    assert same or "model-best is the untrained pipeline (step 0)" in " ".join(r.output.split())
    assert {"morphologizer", "tagger", "lemmatizer"} <= set(best.pipe_names)  # the CoNLL-U's columns were read
    # every line of the table fits 100 columns
    assert max(len(line) for line in r.output.splitlines() if line[:1].isdigit() or line.startswith("E ")) <= 100


def test_the_step_0_model_is_named_where_it_stays_model_best():
    from spacy_planar.io.progress import summary

    lines = summary([(0.11, 0), (0.05, 200)], 75.0, final=0.02)
    assert lines[0].startswith("Training took 0:01:15") and "model-best is step 0's" in lines[0]
    assert "untrained pipeline (step 0)" in lines[1]
    assert len(summary([(0.11, 0), (0.25, 200)], 75.0, final=0.2)) == 1


def test_a_corpus_that_is_neither_docbin_nor_conllu_is_one_line(tmp_path):
    text = tmp_path / "train.txt"
    text.write_text("a sentence\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["train", str(UD), "--output", str(tmp_path / "out"), "--paths.train", str(text),
                                 "--paths.dev", str(fixture_path("dev"))])
    assert r.exit_code == 1 and "E154" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "out").exists()


def test_sigterm_stops_training_as_ctrl_c_does(tmp_path):
    """SIGTERM while the pipeline initializes (before anything is saved): one line (E145), exit 1,
    the folder it made removed; the piped output holds no colour codes (spaCy's bold headings
    included)."""
    train = sample(fixture_path(), tmp_path / "train.conllu", 240)
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ANSI_COLORS_DISABLED")}
    proc = subprocess.Popen([sys.executable, "-m", "spacy_planar", "train", str(UD), "--output", str(out),
                             "--paths.train", str(train), "--paths.dev", str(fixture_path("dev"))],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if "Initializing pipeline" in line:
            proc.send_signal(signal.SIGTERM)
            break
    rest = proc.communicate(timeout=120)[0]
    assert proc.returncode == 1, "".join(seen) + rest
    errors = [line for line in rest.splitlines() if line.startswith("\u2718")]
    assert len(errors) == 1 and "[E145]" in errors[0] and "removed" in errors[0], rest
    assert "Traceback" not in rest and not out.exists()
    assert "\x1b[" not in "".join(seen) + rest and any("=== Initializing pipeline ===" in line for line in seen)


def test_importing_the_command_line_leaves_the_streams_as_they_are():
    """Only running the command line (``main``) takes colour codes out of a piped output: importing
    ``spacy_planar.__main__`` (its ``app`` in a test or a notebook) replaces no stream."""
    code = ("import sys; out, err = sys.stdout, sys.stderr; import spacy_planar.__main__ as m; "
            "print(sys.stdout is out and sys.stderr is err); m.plain_streams(); print(type(sys.stdout).__name__)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "PlainText"]


def test_piped_parse_writes_no_colour_and_no_temporary_path(tmp_path):
    model = small_parser(tmp_path / "model", 20, epochs=1)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ANSI_COLORS_DISABLED")}
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "parse", str(model), "-", "-"],
                         input="Est et inde alia locutio .\n", capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "\x1b[" not in res.stdout + res.stderr
    assert "spacy-planar-" not in res.stderr and "standard output" in res.stderr
    assert res.stdout.count("\n1\tEst\t") == 1


def test_an_output_that_cannot_be_written_is_named_as_given(tmp_path):
    model = small_parser(tmp_path / "model", 20, epochs=1)
    blocked = tmp_path / "a_file"
    blocked.write_text("", encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", str(model), str(fixture_path("test")), str(blocked / "out.conllu")])
    assert r.exit_code == 1 and "E155" in r.output and f"{blocked / 'out.conllu'}: cannot be written" in r.output
    assert ".tmp" not in r.output and len(r.output.strip().splitlines()) == 1


def test_each_word_of_a_multiword_token_knows_its_surface_form():
    """From a treebank (its range lines) and from raw text (the multiword_tokens component):
    token._.mwt_text, token._.mwt (the words) and token._.input_span (the characters written)."""
    from spacy.tokens import Doc

    from spacy_planar.io.conllu import conllu_to_docs
    from spacy_planar.ud.words import MultiwordTokens

    nlp = spacy.blank("la")
    doc = next(d for d in conllu_to_docs(fixture_path(), nlp.vocab, n_sents=3) if any(t.text == "cum" for t in d))
    words = [(t.text, t._.mwt_text, str(t._.mwt)) for t in doc if t._.mwt_text]
    assert ("me", "mecum", "me cum") in words and ("cum", "mecum", "me cum") in words
    me = next(t for t in doc if t._.mwt_text == "mecum")
    assert doc.text[slice(*me._.input_span)] == "me cum"  # a treebank's Doc: its text is its words
    assert all(t._.mwt is None for t in doc if t._.mwt_text is None)
    import srsly

    component = MultiwordTokens(nlp).from_bytes(srsly.msgpack_dumps(
        {"merges": [], "token_splits": {}, "lexicon": {"quinymo": ["quin", "ymo"]}, "suffixes": ["que"],
         "whole": []}))
    raw = component(nlp.make_doc("Ipse quinymo patremque vocavit."))
    assert [t.text for t in raw] == ["Ipse", "quin", "ymo", "patrem", "que", "vocavit", "."]
    assert [t._.mwt_text for t in raw] == [None, "quinymo", "quinymo", "patremque", "patremque", None, None]
    assert [raw._.input_text[slice(*t._.input_span)] for t in raw] == ["Ipse", "quinymo", "quinymo", "patremque",
                                                                     "patremque", "vocavit", "."]
    assert isinstance(raw, Doc) and raw._.input_text == "Ipse quinymo patremque vocavit."


@pytest.mark.parametrize("lang", ["la", "grc"])
def test_vectors_read_text_as_the_tokenizer_splits_it(tmp_path, lang):
    """``raw_text.Corpus`` tokenizes each distinct stretch once and keeps words of letters whole
    without asking: the same tokens as spaCy's tokenizer over each whole line."""
    from spacy_planar.io.raw_text import CHECKED, Corpus

    lines = [s.text for s in __import__("spacy_planar.io.conllu", fromlist=["read_conllu"]).read_conllu(
        fixture_path())] + ["Ἐν ἀρχῇ ἦν ὁ λόγος, καὶ ὁ λόγος ἦν πρὸς τὸν θεόν.", "http://x.org/a?b=c e.g. 3km U.S.A."]
    lines = lines * (1 + CHECKED // 1000)  # past the check of the first stretches of letters
    (tmp_path / "text.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tokenizer = spacy.blank(lang).tokenizer
    read = list(Corpus([tmp_path / "text.txt"], tokenizer))
    whole = [" ".join(t.text for t in doc if not t.is_space) for doc in tokenizer.pipe(lines)]
    assert read == [line for line in whole if line]
