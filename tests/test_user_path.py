"""What a user meets: the README's quickstart as written, raw text in and
valid UD out, one clear line for bad input, files as the user's umask says,
and the picture with its planes."""
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import spacy
from conftest import fixture_path, sample, small_parser
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.io.conllu import read_conllu
from spacy_planar.trees.algorithms import nonprojective_arcs, plane_assignment

ROOT = Path(__file__).resolve().parents[1]


def readme_block(heading: str, language: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def run_line(line: str, cwd: Path) -> tuple:
    """One line of a README block as a user runs it, in ``cwd``: its
    ``spacy-planar`` and ``spacy`` commands (one, or several joined by ``&&``)
    in this process as their typer apps run them, since each new process
    imports spaCy again (2 s a command); a line with a pipe, a redirection, a
    variable or single quotes, or another program, in a shell. Returns the
    exit status and what it printed."""
    from spacy.cli import app as spacy_app

    commands = [] if set(line) & set("|<>;$`'") else [shlex.split(c) for c in line.split(" && ")]
    if not commands or any(argv[0] not in ("spacy-planar", "spacy") for argv in commands):
        bindir = Path(sys.executable).parent
        env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
        res = subprocess.run(line, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        return res.returncode, res.stdout + res.stderr
    before, said = Path.cwd(), ""
    os.chdir(cwd)
    try:
        for argv in commands:
            r = CliRunner().invoke(app if argv[0] == "spacy-planar" else spacy_app, argv[1:], catch_exceptions=False)
            said += r.output
            if r.exit_code:
                return r.exit_code, said
    finally:
        os.chdir(before)
    return 0, said


def quickstart(folder: Path, monkeypatch, literal: bool) -> str:
    """README's quickstart in ``folder``, where ``tests`` is the clone's (its data); ``literal``:
    every line as written, else training 6 steps instead of 8 epochs (the one change). Then
    its Python lines. What the commands printed."""
    (folder / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
    said = ""
    for line in readme_block("Quickstart", "bash").strip().splitlines():
        command = line.split("  #")[0].strip()
        if command.startswith("spacy-planar train") and not literal:
            command = command.replace("--training.max_epochs 8", "--training.max_steps 6 --training.eval_frequency 3")
        code, out = run_line(command, folder)
        assert code == 0, (command, out[-4000:])
        said += out
    for name in ("parsed.conllu", "piped.conllu"):
        sents = list(read_conllu(folder / name))
        assert len(sents) == 1 and sents[0].text == (folder / "text.txt").read_text(encoding="utf-8").strip()
        assert sents[0].deprels[sents[0].heads.index(0)] == "root" and sents[0].heads.count(0) == 1
    assert "<svg" in (folder / "tree.svg").read_text(encoding="utf-8")
    monkeypatch.chdir(folder)  # the Python lines as a user runs them there (in this process)
    exec(compile(readme_block("Quickstart", "python"), "README.md", "exec"), {})
    assert "<html" in (folder / "tree.html").read_text(encoding="utf-8")
    return said


def test_readme_quickstart_runs_as_written(tmp_path, monkeypatch):
    """The quickstart's lines on the clone's test treebank, training 6 steps (the literal run,
    8 epochs, is the slow test below); model-best is scored after the last step. Then, in the same
    folder, the lines of README's other blocks that run on a clone: several treebanks (6 steps),
    a corpus, calibration and k-best with the quickstart's model (the package line is
    tests/test_package.py's, in a fresh venv), and the zoo's lines name its workflows and vars."""
    said = quickstart(tmp_path, monkeypatch, literal=False)
    assert "model-last (the last step) scored" in said and "Training took" in said
    (tmp_path / "configs").symlink_to(ROOT / "configs", target_is_directory=True)
    for name, split, n in (("la_llct-ud-train", "train", 40), ("la_ittb-ud-train", "dev", 40),
                           ("la_llct-ud-dev", "dev", 10), ("dev", "dev", 10), ("test", "test", 10)):
        sample(fixture_path(split), tmp_path / f"{name}.conllu", n)
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "a.txt").write_text((tmp_path / "text.txt").read_text(encoding="utf-8"), encoding="utf-8")
    for heading in ("Several treebanks of one language", "A corpus, a package, and how sure the parser is"):
        for line in readme_block(heading, "bash").strip().splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith("spacy-planar package"):
                continue
            if command.startswith("spacy-planar train"):
                command += " --training.max_steps 6 --training.eval_frequency 3"
            code, out = run_line(command, tmp_path)
            assert code == 0, (command, out[-4000:])
    assert spacy.load(tmp_path / "latin" / "model-best").has_pipe("parse_decider")  # the accurate tier
    assert len(list(read_conllu(tmp_path / "parsed" / "a.conllu"))) >= 1
    assert "# sent_id = " in (tmp_path / "kbest.conllu").read_text(encoding="utf-8")
    import yaml

    project = yaml.safe_load((ROOT / "project.yml").read_text(encoding="utf-8"))
    for line in readme_block("A ready-made pipeline", "bash").strip().splitlines():
        words = line.split("  #")[0].split()
        if words[:3] == ["spacy", "project", "run"]:
            assert words[3] in project["workflows"], line
            assert all(w[len("--vars."):] in project["vars"] for w in words if w.startswith("--vars.")), line


@pytest.mark.slow
def test_readme_quickstart_runs_literally(tmp_path, monkeypatch):
    """Every line of the quickstart as written (about 4 minutes on 2 cores): a Latin pipeline
    whose model-best was scored after its last step, with its taggers, which splits mecum."""
    said = quickstart(tmp_path, monkeypatch, literal=True)
    assert "model-last (the last step) scored" in said and "model-best is the untrained" not in said
    nlp = spacy.load(tmp_path / "model" / "model-best")
    assert nlp.lang == "la" and {"morphologizer", "tagger", "lemmatizer"} <= set(nlp.pipe_names)
    doc = nlp("Ipse mecum loquebatur.")
    assert [t._.mwt_text for t in doc][1:3] == ["mecum", "mecum"]


def test_readme_raw_text_recipe_runs_as_written_for_latin(tmp_path):
    """README's raw-text recipe for a Latin pipeline with vectors, as a user
    copies it, on 60 training sentences of the test treebank (Latin), 15 dev
    and 15 test, and the rest of its text as the raw text; the changes: a smaller vectors table
    (20,000 rows, 1 epoch) and 6 training steps, and the pip line left out
    (this environment has floret). The pipeline is Latin, it reads
    paragraphs (one a line) into sentences with one root each, and the
    evaluation names Sentences F1."""
    import lzma

    for split, n in (("train", 60), ("dev", 15), ("test", 15)):
        sample(fixture_path(split), tmp_path / f"{split}.conllu", n)
    texts = [s.text for s in read_conllu(fixture_path())][60:] + [s.text for s in read_conllu(fixture_path("dev"))][15:]
    (tmp_path / "latin_texts").mkdir()
    with lzma.open(tmp_path / "latin_texts" / "a.txt.xz", "wt", encoding="utf-8") as f:
        f.write("\n".join(texts) + "\n")
    test = [s.text for s in read_conllu(tmp_path / "test.conllu")]  # the recipe writes them as paragraphs.txt
    for line in readme_block("Your own text: raw text in, UD out", "bash").strip().splitlines():
        command = line.split("  #")[0].strip()
        if command.startswith("pip install"):
            continue
        if command.startswith("spacy-planar vectors"):
            command += " --bucket 20000 --epochs 1 --min-count 1"
        if command.startswith("spacy-planar train"):
            command += " --training.max_steps 6 --training.eval_frequency 3"
        code, said = run_line(command, tmp_path)
        assert code == 0, (command, said[-4000:])
    nlp = spacy.load(tmp_path / "model" / "model-best")
    assert nlp.lang == "la" and nlp.vocab.vectors.mode == "floret"
    assert {"senter", "lemmatizer", "multiword_tokens"} <= set(nlp.pipe_names)
    sents = list(read_conllu(tmp_path / "parsed.conllu"))
    assert all(s.heads.count(0) == 1 for s in sents) and "".join(s.text for s in sents).replace(" ", "") == \
        "".join(test).replace(" ", "")
    assert "Sentences (CoNLL 2018)" in said


BAD_INPUTS = {
    "a directory": lambda tmp: str(tmp),
    "an empty file": lambda tmp: (tmp / "empty.conllu").write_text("") and None or str(tmp / "empty.conllu"),
    "a missing file": lambda tmp: str(tmp / "missing.conllu"),
    "a Latin-1 file": lambda tmp: (tmp / "latin1.conllu").write_bytes(
        "# text = caf\xe9\n1\tcaf\xe9\t_\t_\t_\t_\t0\troot\t_\t_\n\n".encode("latin-1")) and str(tmp / "latin1.conllu"),
    "a binary file": lambda tmp: (tmp / "bin.conllu").write_bytes(bytes(range(256)) * 4) and str(tmp / "bin.conllu"),
}


@pytest.mark.parametrize("command", [["convert", "{}", "{out}/x.spacy"], ["lab", "stats", "{}"],
                                     ["evaluate", "{}", "{}"], ["lab", "transform-check", "{}"],
                                     ["lab", "oracle", "{}"], ["lab", "roundtrip-check", "{}"], ["validate", "{}"]])
@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_gets_one_line_and_exit_1(command, kind, tmp_path):
    path = BAD_INPUTS[kind](tmp_path)
    args = [a.format(path, out=tmp_path) for a in command]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "[E0" in lines[0] and "Traceback" not in r.output, r.output
    assert not (tmp_path / "x.spacy").exists()


def test_output_directory_and_byte_order_mark(tmp_path):
    bom = tmp_path / "bom.conllu"
    text = sample(fixture_path("dev"), tmp_path / "plain.conllu", 3).read_bytes()
    bom.write_bytes(b"\xef\xbb\xbf" + text)
    r = CliRunner().invoke(app, ["convert", str(bom), str(tmp_path / "bom.spacy")])
    assert r.exit_code == 0, r.output
    (tmp_path / "dir.spacy").mkdir()
    r = CliRunner().invoke(app, ["convert", str(bom), str(tmp_path / "dir.spacy")])
    assert r.exit_code == 1 and "[E032]" in r.output and len(r.output.strip().splitlines()) == 1


def test_written_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "x.spacy"
        r = CliRunner().invoke(app, ["convert", str(sample(fixture_path("dev"), tmp_path / "s.conllu", 3)),
                                     str(out)])
        assert r.exit_code == 0, r.output
        assert out.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


def test_render_draws_the_second_plane_below_the_words(tmp_path):
    """An SVG per sentence that parses as XML, one arc per word, each arc's
    plane the one ``trees.plane_assignment`` gives, the second plane's arcs
    below the words' baseline and the first plane's above, non-projective
    arcs marked."""
    gold = fixture_path("dev")
    sents = list(read_conllu(gold))
    k = next(i for i, s in enumerate(sents) if plane_assignment(s.heads)[0] == 2)
    out = tmp_path / "tree.svg"
    r = CliRunner().invoke(app, ["render", str(gold), str(out), "--sentence", str(k + 1)])
    assert r.exit_code == 0, r.output
    svg = ET.parse(out).getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    words = svg.findall("s:text[@class='planar-word']", ns)
    baseline = float(words[0].get("y"))
    arcs = svg.findall("s:g", ns)
    heads = sents[k].heads
    assert [w.text for w in words] == sents[k].forms and len(arcs) == len(heads)
    _, planes = plane_assignment(heads)
    nonproj = nonprojective_arcs(heads)
    for g in arcs:
        d, h, plane = int(g.get("data-dep")), int(g.get("data-head")), int(g.get("data-plane"))
        assert h == heads[d - 1] and plane == max(planes[d - 1], 0)
        assert ("nonprojective" in g.get("class")) == bool(nonproj[d - 1])
        if h:
            ys = [float(v) for v in re.findall(r"[ ,](-?\d+(?:\.\d+)?)", g.find("s:path", ns).get("d"))[1::2]]
            assert (min(ys) > baseline) if plane else (max(ys) < baseline)
    assert any(int(g.get("data-plane")) == 1 for g in arcs)
    r = CliRunner().invoke(app, ["render", str(gold), str(tmp_path / "all.html")])
    assert r.exit_code == 0 and (tmp_path / "all.html").read_text(encoding="utf-8").count("<svg") == len(sents)


def test_render_of_several_sentences_is_one_svg_document(tmp_path):
    """Several sentences in one .svg (the file, and ``render(doc)`` of a
    Doc with several sentences): one XML document, a nested picture per
    sentence, one above the other; a CoNLL-U file named .txt is read as
    CoNLL-U; a pipeline without --text, or a CoNLL-U file with it, gets
    one line."""
    from spacy_planar.io.conllu import sentences_to_doc
    from spacy_planar.eval.render import render

    gold = sample(fixture_path("dev"), tmp_path / "three.txt", 3)  # CoNLL-U whatever its name
    out = tmp_path / "all.svg"
    r = CliRunner().invoke(app, ["render", str(gold), str(out)])
    assert r.exit_code == 0, r.output
    ns = {"s": "http://www.w3.org/2000/svg"}
    for root in (ET.parse(out).getroot(),
                 ET.fromstring(render(sentences_to_doc(spacy.blank("xx").vocab, list(read_conllu(gold)))))):
        pictures = root.findall("s:svg", ns)
        assert len(pictures) == 3
        ys = [float(p.get("y")) for p in pictures]
        assert ys == sorted(ys) and ys[0] == 0 and float(root.get("height")) > ys[-1]
    r = CliRunner().invoke(app, ["render", str(gold), str(out), "--text", "jah qaþ"])
    assert r.exit_code == 1 and "[E079]" in r.output and len(r.output.strip().splitlines()) == 1
    # a path that is neither a CoNLL-U file nor a pipeline says which it is; a pipeline without --text,
    # or with an empty one, says what it needs
    from conftest import small_parser

    model = small_parser(tmp_path / "model", 10, epochs=1)
    (tmp_path / "empty.txt").write_text("")
    for args, code in (([str(tmp_path), str(out)], "E107"), ([str(tmp_path / "nothing"), str(out)], "E116"),
                       ([str(tmp_path / "empty.txt"), str(out)], "E119"), ([str(model), str(out)], "E085"),
                       ([str(model), str(out), "--text", " "], "E120")):
        r = CliRunner().invoke(app, ["render", *args])
        assert r.exit_code == 1 and f"[{code}]" in r.output and len(r.output.strip().splitlines()) == 1, (args,
                                                                                                          r.output)


def test_inputs_are_told_apart_by_content(tmp_path):
    """A CoNLL-U file named .txt is CoNLL-U, a DocBin is a DocBin whatever
    its name, plain text is text: readers of CoNLL-U name what they got in
    one line; parse takes all three."""
    from spacy_planar.io.conllu import conllu_to_docbin, file_kind

    conllu_txt = sample(fixture_path("dev"), tmp_path / "a.txt", 3)
    docbin = tmp_path / "b.conllu"
    conllu_to_docbin(conllu_txt, tmp_path / "b.spacy")
    docbin.write_bytes((tmp_path / "b.spacy").read_bytes())
    text = tmp_path / "c.conllu"
    text.write_text("jah qaþ imma .\n", encoding="utf-8")
    assert [file_kind(p) for p in (conllu_txt, docbin, text)] == ["conllu", "docbin", "text"]
    r = CliRunner().invoke(app, ["lab", "stats", str(conllu_txt)])
    assert r.exit_code == 0, r.output
    for path, code in ((docbin, "[E017]"), (text, "[E018]")):
        r = CliRunner().invoke(app, ["lab", "stats", str(path)])
        assert r.exit_code == 1 and code in r.output and len(r.output.strip().splitlines()) == 1, r.output


NOT_PIPELINES = {
    # what was given, what the message names
    "a training output folder (model-best inside)": (lambda tmp: _training_output(tmp), "E107", "did you mean"),
    "a folder that is no pipeline": (lambda tmp: str(tmp), "E107", None),
    "a file": (lambda tmp: (tmp / "x.txt").write_text("x") and str(tmp / "x.txt"), "E107|E119", None),  # render: E119
    "an unknown package name": (lambda tmp: "la_no_such_pipeline", "E116", None),
}


def _training_output(tmp: Path) -> str:
    (tmp / "model" / "model-best").mkdir(parents=True)
    for name in ("meta.json", "config.cfg"):
        (tmp / "model" / "model-best" / name).write_text("{}")
    return str(tmp / "model")


@pytest.mark.parametrize("command", [
    ["parse", "{model}", "{text}", "{out}/o.conllu"], ["parse", "{model}", "{text}", "{out}/o.conllu", "--kbest", "2"],
    ["parse-corpus", "{model}", "{folder}", "{out}/parsed"], ["render", "{model}", "{out}/t.svg", "--text", "a b"],
    ["render", "{model}", "{out}/t.svg", "--text", "a b", "--confidence"], ["calibrate", "{model}", "{gold}",
                                                                            "{out}/c"],
    ["lab", "stacks", "{model}", "{gold}"], ["package", "{model}", "{out}/packages", "--name", "x"],
])
@pytest.mark.parametrize("kind", sorted(NOT_PIPELINES))
def test_a_model_that_is_not_a_pipeline_is_one_line(command, kind, tmp_path):
    """Every command that loads a pipeline: a folder that is none (the
    training output folder for its model-best is the likely typo), a file,
    an unknown package name: one line with its code, exit 1, nothing written."""
    make, code, hint = NOT_PIPELINES[kind]
    model = make(tmp_path)
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "a.txt").write_text("jah qaþ\n", encoding="utf-8")
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 3)
    out = tmp_path / "out"
    out.mkdir()
    args = [a.format(model=model, text=tmp_path / "texts" / "a.txt", folder=tmp_path / "texts", out=out, gold=gold)
            for a in command]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and re.search(code, lines[0]) and "Traceback" not in r.output, r.output
    assert hint is None or hint in lines[0]
    assert list(out.iterdir()) == []


def test_an_installed_package_name_loads_with_kbest(tmp_path, monkeypatch):
    """"path or package": a package name works with --kbest and --confidence
    too (its data folder is found as spaCy finds it)."""
    from conftest import small_parser

    from spacy_planar.io.pipelines import pipeline_path

    small_parser(tmp_path / "model", 20, epochs=1)
    pkg = tmp_path / "site" / "xx_fake_planar"
    data = pkg / "xx_fake_planar-0.0.1"
    import shutil

    shutil.copytree(tmp_path / "model", data)
    meta = spacy.util.load_meta(data / "meta.json")
    meta.update({"name": "fake_planar", "version": "0.0.1", "lang": "xx"})
    import srsly

    srsly.write_json(pkg / "meta.json", meta)
    (pkg / "__init__.py").write_text("from spacy.util import load_model_from_init_py\n"
                                     "def load(**overrides):\n"
                                     "    return load_model_from_init_py(__file__, **overrides)\n")
    monkeypatch.setattr(spacy.util, "is_package", lambda name: name == "xx_fake_planar")
    monkeypatch.setattr(spacy.util, "get_package_path", lambda name: pkg)
    assert pipeline_path("xx_fake_planar") == data
    text = tmp_path / "a.txt"
    text.write_text("jah qaþ du im\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", "xx_fake_planar", str(text), str(tmp_path / "o.conllu"), "--kbest", "2"])
    assert r.exit_code == 0, r.output
    assert "# sent_id = 1/2" in (tmp_path / "o.conllu").read_text(encoding="utf-8")


def test_init_config_sets_the_language_once(tmp_path):
    """`init-config --lang la`: the config's pipeline is Latin (its
    tokenizer, its package name), said in its first line; a code spaCy does
    not know is one line (E132)."""
    from thinc.api import Config

    r = CliRunner().invoke(app, ["init-config", "arc_eager", str(tmp_path / "la.cfg"), "--tagging", "--lang", "la"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "la.cfg").read_text(encoding="utf-8")
    assert text.startswith("# spacy-planar init-config arc_eager --tagging --lang la:")
    assert Config().from_str(text, interpolate=False)["nlp"]["lang"] == "la"
    r = CliRunner().invoke(app, ["init-config", "arc_eager", str(tmp_path / "x.cfg"), "--lang", "qq"])
    assert r.exit_code == 1 and "E132" in r.output and not (tmp_path / "x.cfg").exists()


def test_parse_will_not_overwrite_its_input(tmp_path):
    model = small_parser(tmp_path / "model", 10, epochs=1)
    gold = sample(fixture_path("dev"), tmp_path / "in.conllu", 3)
    before = gold.read_bytes()
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(tmp_path / "." / "in.conllu")])
    assert r.exit_code == 1 and "E133" in r.output and gold.read_bytes() == before


def test_evaluate_scores_tokens_words_and_sentences_of_raw_text(tmp_path):
    """A system whose tokens, words or sentences differ from the gold's
    (raw text parsed) gets the CoNLL 2018 scorer's Tokens, Words and
    Sentences F1 where they are below 100; one over the gold words shows
    none of them."""
    import json

    gold = tmp_path / "gold.conllu"
    gold.write_text("# text = ab c.\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n"
                    "2\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n3\tc\t_\tX\t_\t_\t1\tdep\t_\tSpaceAfter=No\n"
                    "4\t.\t_\tX\t_\t_\t1\tpunct\t_\t_\n\n# text = d\n1\td\t_\tX\t_\t_\t0\troot\t_\t_\n\n",
                    encoding="utf-8")
    system = tmp_path / "system.conllu"
    system.write_text("# text = ab c. d\n1\tab\t_\tX\t_\t_\t0\troot\t_\t_\n2\tc\t_\tX\t_\t_\t1\tdep\t_\tSpaceAfter=No\n"
                      "3\t.\t_\tX\t_\t_\t1\tpunct\t_\t_\n4\td\t_\tX\t_\t_\t1\tdep\t_\t_\n\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["evaluate", str(gold), str(system), "--json"])
    assert r.exit_code == 0, r.output
    official = json.loads(r.output)["official"]
    # the same tokens (100: not shown); words c . d of the gold's five, of the system's four; no sentence alike
    precision, recall = 3 / 4, 3 / 5
    assert "Tokens" not in official
    assert official["Words"] == pytest.approx(100 * 2 * precision * recall / (precision + recall))
    assert official["Sentences"] == 0.0
    r = CliRunner().invoke(app, ["evaluate", str(gold), str(system)])
    assert "Words (CoNLL 2018)" in r.output and "Sentences (CoNLL 2018)" in r.output
    r = CliRunner().invoke(app, ["evaluate", str(gold), str(gold), "--json"])
    assert not {"Tokens", "Words", "Sentences"} & set(json.loads(r.output)["official"])


def test_parse_reads_standard_input_and_writes_standard_output(tmp_path):
    """`parse MODEL - -`: text (or CoNLL-U) piped in, CoNLL-U piped out, and
    what parse says on standard error, as UDPipe's users pipe text; raw text
    comes out in Unicode NFC, as UD requires (U+1F71 is U+03AC)."""
    import subprocess
    import sys

    from spacy_planar.io.conllu import read_conllu

    model = small_parser(tmp_path / "model", 10, epochs=1)
    text = "Marcus heri venit .\nNec opis est nostr\u1f71 .\n"
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "parse", str(model), "-", "-"], input=text,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    (tmp_path / "out.conllu").write_text(res.stdout, encoding="utf-8")
    parsed = list(read_conllu(tmp_path / "out.conllu"))
    assert [s.text for s in parsed] == ["Marcus heri venit .", "Nec opis est nostr\u03ac ."]
    assert parsed[1].forms[3] == "nostr\u03ac"
    assert "Parsed 2 sentences" in res.stderr and "Parsed" not in res.stdout
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 3)
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "parse", str(model), "-", str(tmp_path / "g.conllu")],
                         input=gold.read_text(encoding="utf-8"), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert [s.forms for s in read_conllu(tmp_path / "g.conllu")] == [s.forms for s in read_conllu(gold)]


def test_a_treebanks_text_as_paragraphs_parses_and_scores_against_it(tmp_path):
    """`convert TREEBANK.conllu paragraphs.txt` writes its text as parse reads
    raw text (a paragraph a line, a blank line between documents); parsing it
    writes # newdoc / # newpar where they were, which convert reads back;
    `evaluate` scores the parse against the treebank (the recipe's last step)."""
    import json

    from spacy_planar.io.conllu import read_conllu

    model = small_parser(tmp_path / "model", 20, epochs=2)
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 12)
    blocks = gold.read_text(encoding="utf-8").split("\n\n")
    blocks[0] = "# newdoc id = a\n# newpar\n" + blocks[0]
    blocks[5] = "# newpar\n" + blocks[5]
    blocks[8] = "# newdoc id = b\n# newpar\n" + blocks[8]
    gold.write_text("\n\n".join(blocks), encoding="utf-8")
    runner = CliRunner()
    r = runner.invoke(app, ["convert", str(gold), str(tmp_path / "paragraphs.txt")])
    assert r.exit_code == 0, r.output
    lines = (tmp_path / "paragraphs.txt").read_text(encoding="utf-8").split("\n")
    assert [bool(line) for line in lines] == [True, True, False, True, False]  # 3 paragraphs, 2 documents
    r = runner.invoke(app, ["parse", str(model), str(tmp_path / "paragraphs.txt"), str(tmp_path / "parsed.conllu")])
    assert r.exit_code == 0, r.output
    marks = [[c for c in s.comments if c.startswith(("# newdoc", "# newpar"))]
             for s in read_conllu(tmp_path / "parsed.conllu")]
    opened = [m for m in marks if m]
    assert opened == [["# newdoc", "# newpar"], ["# newpar"], ["# newdoc", "# newpar"]]
    r = runner.invoke(app, ["convert", str(tmp_path / "parsed.conllu"), str(tmp_path / "p.spacy")])
    r = runner.invoke(app, ["convert", str(tmp_path / "p.spacy"), str(tmp_path / "back.conllu")])
    assert r.exit_code == 0 and [[c for c in s.comments if "new" in c] for s in read_conllu(tmp_path / "back.conllu")
                                 ] == marks
    r = runner.invoke(app, ["evaluate", str(gold), str(tmp_path / "parsed.conllu"), "--json"])
    assert r.exit_code == 0, r.output
    official = json.loads(r.output)["official"]  # Tokens, Words, Sentences F1 shown where below 100
    assert official.get("Words", 100.0) > 95 and "LAS" in official  # the words aligned, the trees scored


def test_parse_reads_a_pipe_and_a_process_substitution_once(tmp_path):
    """A shell's process substitution (`parse MODEL <(echo ...) -`) and a pipe are streams: parse
    reads each once (its kind and its words from the one copy), as it reads standard input."""
    model = small_parser(tmp_path / "model", 10, epochs=1)
    text = "Quem ad finem sese effrenata iactabit audacia?"
    line = f'{shlex.quote(sys.executable)} -m spacy_planar parse {model} <(echo "{text}") -'
    res = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert f"# text = {text}" in res.stdout and "Parsed 1 sentences" in res.stderr
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 3)
    python = shlex.quote(sys.executable)
    line = f"cat {gold} | {python} -m spacy_planar parse {model} /dev/stdin {tmp_path / 'g.conllu'}"
    res = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert [s.forms for s in read_conllu(tmp_path / "g.conllu")] == [s.forms for s in read_conllu(gold)]


def _head_out_of_range(tmp_path) -> tuple:
    """A 3-sentence sample whose second sentence's third word has HEAD 99: (path, its line)."""
    path = sample(fixture_path("dev"), tmp_path / "bad.conllu", 3)
    lines = path.read_text(encoding="utf-8").split("\n")
    blanks = [i for i, line in enumerate(lines) if not line.strip()]
    words = [i for i in range(blanks[0] + 1, blanks[1]) if lines[i].split("\t")[0] == "3"]
    cols = lines[words[0]].split("\t")
    cols[6] = "99"
    lines[words[0]] = "\t".join(cols)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path, words[0] + 1


def test_parse_refuses_a_head_outside_the_sentence_as_every_command_does(tmp_path):
    """HEAD 99 in a sentence of fewer words: `parse` refuses the file as `convert`, `evaluate` and
    `train` do, in the same one line (file, line, E006), exit 1, nothing written; `parse-corpus`
    too, naming the file."""
    model = small_parser(tmp_path / "model", 10, epochs=1)
    bad, line = _head_out_of_range(tmp_path)
    said = f"{bad}:{line}: [E006] HEAD 99 of word 3"
    for args in (["parse", str(model), str(bad), str(tmp_path / "out.conllu")],
                 ["convert", str(bad), str(tmp_path / "out.spacy")], ["evaluate", str(bad), str(bad)],
                 ["train", str(ROOT / "configs" / "arc_eager.cfg"), "--output", str(tmp_path / "trained"),
                  "--paths.train", str(bad), "--paths.dev", str(bad)]):
        r = CliRunner().invoke(app, args)
        lines = r.output.strip().splitlines()
        assert r.exit_code == 1 and len(lines) == 1 and lines[0].startswith(f"\u2718 {said} is outside 0.."), \
            (args, r.output)
    assert not any((tmp_path / name).exists() for name in ("out.conllu", "out.spacy", "trained"))
    (tmp_path / "corpus").mkdir()
    bad.rename(tmp_path / "corpus" / "bad.conllu")
    r = CliRunner().invoke(app, ["parse-corpus", str(model), str(tmp_path / "corpus"), str(tmp_path / "parsed")])
    assert r.exit_code == 1 and f"{tmp_path / 'corpus' / 'bad.conllu'}:{line}: [E006]" in r.output, r.output
    assert not list(tmp_path.glob("parsed/*.conllu"))


COMPRESSORS = {".gz": "gzip", ".xz": "lzma", ".bz2": "bz2"}


def _compressed(path: Path, suffix: str, name: str = "") -> Path:
    import importlib

    module = importlib.import_module(COMPRESSORS[suffix])
    out = path.with_name((name or path.name) + suffix)
    out.write_bytes(module.compress(path.read_bytes()))
    return out


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_compressed_inputs_are_read_as_their_plain_files(tmp_path, suffix):
    """A .gz, .xz or .bz2 CoNLL-U or text file: `parse`, `convert`, `evaluate` and `parse-corpus`
    read it as its plain file (the same output); its content decides, so a compressed file
    without the suffix is read too; one that is not what its name says is one line (E113)."""
    model = small_parser(tmp_path / "model", 10, epochs=1)
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 4)
    text = tmp_path / "text.txt"
    text.write_text("Marcus heri venit .\nNec opis est nostra .\n", encoding="utf-8")
    runner = CliRunner()
    for plain in (gold, text):
        packed = _compressed(plain, suffix)
        unnamed = tmp_path / f"no_suffix_{plain.stem}"
        unnamed.write_bytes(packed.read_bytes())
        outputs = []
        for given in (plain, packed, unnamed):
            out = tmp_path / f"{given.name}.parsed.conllu"
            r = runner.invoke(app, ["parse", str(model), str(given), str(out)])
            assert r.exit_code == 0, r.output
            outputs.append(out.read_text(encoding="utf-8"))
        assert outputs[0] == outputs[1] == outputs[2]
    packed = _compressed(gold, suffix)
    r = runner.invoke(app, ["convert", str(packed), str(tmp_path / "gold.spacy")])
    assert r.exit_code == 0 and "4 docs" in " ".join(r.output.split()), r.output  # wasabi wraps long paths
    plain_scores = runner.invoke(app, ["evaluate", str(gold), str(tmp_path / "gold.conllu.parsed.conllu"), "--json"])
    packed_scores = runner.invoke(app, ["evaluate", str(packed), str(tmp_path / "gold.conllu.parsed.conllu"), "--json"])
    assert packed_scores.exit_code == 0 and packed_scores.output == plain_scores.output
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    packed.rename(corpus / packed.name)
    _compressed(text, suffix).rename(corpus / "sub" / f"text.txt{suffix}")
    r = runner.invoke(app, ["parse-corpus", str(model), str(corpus), str(tmp_path / "parsed")])
    assert r.exit_code == 0 and "Parsed 2 files" in r.output, r.output
    assert (tmp_path / "parsed" / "gold.conllu").read_text(encoding="utf-8") == outputs_of(tmp_path, "gold.conllu")
    assert (tmp_path / "parsed" / "sub" / "text.conllu").read_text(encoding="utf-8") == outputs_of(tmp_path, "text.txt")
    fake = tmp_path / f"fake.conllu{suffix}"
    fake.write_bytes(gold.read_bytes())
    for args in (["parse", str(model), str(fake), str(tmp_path / "x.conllu")], ["convert", str(fake),
                                                                                str(tmp_path / "x.spacy")]):
        r = runner.invoke(app, args)
        assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
        assert f"{fake}:1: [E113]" in r.output and not (tmp_path / "x.conllu").exists()


def outputs_of(folder: Path, name: str) -> str:
    """What `parse` wrote for the plain ``name`` in the test above (its first header line is the same)."""
    return (folder / f"{name}.parsed.conllu").read_text(encoding="utf-8")
