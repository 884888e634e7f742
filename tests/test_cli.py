import json
import subprocess
import sys

import pytest
from conftest import fixture_path
from typer.testing import CliRunner

from spacy_planar.__main__ import app

runner = CliRunner()


def test_module_entry_point():
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "parse-corpus" in res.stdout and "lab" in res.stdout


def gold(path):
    """Every annotated tree of a CoNLL-U file, read by the conllu library (not ours)."""
    import conllu

    out = []
    for sentence in conllu.parse(path.read_text(encoding="utf-8")):
        words = [t for t in sentence if isinstance(t["id"], int)]
        out.append(([t["head"] for t in words], [t["deprel"] for t in words]))
    return out


def test_stats_json(train_conllu, tmp_path):
    """`lab stats` against the definitions (tests/reference.py) over the
    trees the conllu library reads (ill-nestedness, a search in the
    reference, on the trees of at most 14 words)."""
    from reference import ill_nested, nonprojective

    trees = gold(train_conllu)
    res = runner.invoke(app, ["lab", "stats", str(train_conllu), "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["trees"] == len(trees) == 240 and row["words"] == sum(len(h) for h, _ in trees)
    assert row["nonprojective_arcs"] == sum(sum(nonprojective(h)) for h, _ in trees) > 0
    assert row["nonprojective_trees"] == sum(any(nonprojective(h)) for h, _ in trees)
    blocks = [b for b in train_conllu.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    short = [b for b, (h, _) in zip(blocks, trees) if len(h) <= 14]
    (tmp_path / "short.conllu").write_text("\n\n".join(short) + "\n\n", encoding="utf-8")
    res = runner.invoke(app, ["lab", "stats", str(tmp_path / "short.conllu"), "--json"])
    (row,) = json.loads(res.output)
    assert row["trees"] == len(short) and row["ill_nested_trees"] == sum(ill_nested(h) for h, _ in gold(
        tmp_path / "short.conllu"))


@pytest.mark.parametrize("encoding", ["baseline", "head", "path", "head+path"])
def test_transform_check_json(train_conllu, encoding):
    """Every non-projective arc (the reference's count) is lifted; baseline
    restores none, so its round trip's LAS is the share of the other arcs;
    each richer encoding restores more (head+path nine in ten or more, as in
    Nivre & Nilsson 2005, Tables 3 and 4)."""
    from reference import nonprojective

    trees = gold(train_conllu)
    n_words = sum(len(h) for h, _ in trees)
    n_np = sum(sum(nonprojective(h)) for h, _ in trees)
    runs = {}
    for e in ("baseline", encoding, "head+path"):
        res = runner.invoke(app, ["lab", "transform-check", str(train_conllu), "--encoding", e, "--json"])
        assert res.exit_code == 0, res.output
        runs[e] = json.loads(res.output)
    r = runs[encoding]
    assert r["nonprojective_arcs"] == n_np and sum(r["lifts"].values()) == n_np
    assert runs["baseline"]["restored_arcs"] == 0
    assert runs["baseline"]["roundtrip_las"] == pytest.approx(100 * (n_words - n_np) / n_words)
    assert 0 <= r["restored_arcs"] <= runs["head+path"]["restored_arcs"] <= n_np
    # the arcs not restored are wrong: the round trip's LAS is at most the rest's share
    ceiling = 100 * (n_words - n_np + r["restored_arcs"]) / n_words
    assert runs["baseline"]["roundtrip_las"] <= r["roundtrip_las"] <= ceiling
    assert runs["head+path"]["restored_arcs"] >= 0.9 * n_np
    if encoding == "baseline":
        assert r["labels_after"] == r["labels_before"]


def test_unknown_encoding(train_conllu):
    res = runner.invoke(app, ["lab", "transform-check", str(train_conllu), "--encoding", "nope"])
    assert res.exit_code == 1 and "E050" in res.output


def test_tree_transform_check_json(train_conllu):
    """Experiment I (Nilsson 2007, Table 4.4) through the CLI: the
    coordinations found are those with a conjunct (``conj``), every tree
    comes back, and every transform is listed."""
    trees = gold(train_conllu)
    res = runner.invoke(app, ["lab", "transform-check", str(train_conllu), "--transform", "coordination-ms", "--json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    heads_of_conj = sum(len({h[d] for d, l in enumerate(ls) if l.split(":")[0] == "conj"}) for h, ls in trees)
    assert r["transform"] == "coordination-ms" and r["found"] == heads_of_conj > 0
    assert r["roundtrip_uas"] == r["roundtrip_las"] == r["touched_uas"] == r["touched_las"] == 100.0
    res = runner.invoke(app, ["lab", "transform-check", str(train_conllu), "-t", "all", "--json"])
    rows = json.loads(res.output)
    assert [x["transform"] for x in rows][-1] == "verb-group-ms+cop"
    auxiliaries = sum(l in ("aux", "aux:pass", "cop") for _, ls in trees for l in ls)
    assert (rows[-1]["found"] > 0) == (auxiliaries > 0)
    res = runner.invoke(app, ["lab", "transform-check", str(train_conllu), "-t", "coordination-xs"])
    assert res.exit_code == 1 and "E051" in res.output


@pytest.mark.parametrize("encoding", ["baseline", "head+path"])
def test_oracle_json_top_down_as_arc_eager(train_conllu, encoding):
    """The top-down system covers what arc-eager covers with the same
    encoding (both derive every projectivized tree), with exactly n
    predictions, n scans and n completions; the keys are the other systems'."""
    runs = {}
    for system in ("arc_eager", "top_down"):
        res = runner.invoke(app, ["lab", "oracle", str(train_conllu), "--system", system, "--encoding", encoding,
                                  "--json"])
        assert res.exit_code == 0, res.output
        runs[system] = json.loads(res.output)
    ae, td = runs["arc_eager"], runs["top_down"]
    assert set(td) == set(ae) and td["encoding"] == encoding
    assert (td["reproduced"], td["not_covered"]) == (ae["reproduced"], ae["not_covered"])
    t = td["transitions"]
    assert t["PRED"] == t["SCAN"] == t["COMP-LEFT"] + t["COMP-RIGHT"] == sum(len(h) for h, _ in gold(train_conllu))


def test_bad_input_and_internal_errors_exit_apart(tmp_path, monkeypatch, capsys):
    """Bad input: one line naming the file, line and reason, exit 1. An
    internal error (here a function the command calls breaks): its
    traceback and exit 2, not one line that blames the input."""
    from spacy_planar import __main__ as cli
    from spacy_planar_lab import analyse

    def run(path):  # `spacy-planar lab stats PATH` through main(): (exit status, stderr)
        monkeypatch.setattr(sys, "argv", ["spacy-planar", "lab", "stats", str(path)])
        with pytest.raises(SystemExit) as e:
            cli.main()
        return e.value.code, capsys.readouterr().err

    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tx\n", encoding="utf-8")
    code, err = run(bad)
    assert code == 1 and f"{bad}:1: [E002]" in err and "Traceback" not in err

    def broken(*args, **kwargs):
        raise ValueError("an internal error, not the user's")

    monkeypatch.setattr(analyse, "stats_of", broken)
    good = tmp_path / "good.conllu"
    good.write_text("1\tx\t_\tX\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    code, err = run(good)
    assert code == 2 and "Traceback" in err and "an internal error, not the user's" in err


def test_validate_runs_the_ud_validator(tmp_path):
    """`validate` passes a UD release's file at level 2 (exit 0) and fails
    one with a second root, naming the error (exit 1)."""
    from conftest import fixture_path, sample

    good = sample(fixture_path("dev"), tmp_path / "good.conllu", 5)
    res = runner.invoke(app, ["validate", str(good), "--level", "2"])
    assert res.exit_code == 0 and "PASSED" in res.output, res.output
    bad_lines = good.read_text(encoding="utf-8").split("\n")
    i = next(i for i, line in enumerate(bad_lines) if line.split("\t")[0] == "2")
    cols = bad_lines[i].split("\t")
    cols[6], cols[7] = "0", "root"
    bad_lines[i] = "\t".join(cols)
    bad = tmp_path / "bad.conllu"
    bad.write_text("\n".join(bad_lines), encoding="utf-8")
    res = runner.invoke(app, ["validate", str(bad)])
    assert res.exit_code == 1 and "FAILED" in res.output and "root" in res.output, res.output
    res = runner.invoke(app, ["validate", str(good), "--level", "7"])
    assert res.exit_code == 1 and "[E044]" in res.output


def test_flags_show_no_value_in_help():
    """A flag of ours takes no value: typer's ``<bool>`` does not follow it in
    --help (typer's own --help line keeps it)."""
    for command in (["parse"], ["parse-corpus"], ["lab", "compare"], ["vectors"], ["package"], ["evaluate"]):
        res = runner.invoke(app, [*command, "--help"])
        lines = [line for line in res.output.splitlines() if "--help" not in line]
        assert res.exit_code == 0 and any("--" in line for line in lines), command
        assert not [line for line in lines if "<bool>" in line], (command, res.output)


def test_train_hands_its_gpu_id_to_spacys_train(monkeypatch, tmp_path):
    """``train --gpu-id N`` trains on that device: spaCy's train is called
    with it (called without it, spaCy's train announces the CPU and skips
    the config's GPU allocator)."""
    from pathlib import Path

    import spacy.cli.train

    from spacy_planar.cli.train import train_stages

    seen = []
    monkeypatch.setattr(spacy.cli.train, "train", lambda *args, **kwargs: seen.append(kwargs.get("use_gpu")))
    config = Path(__file__).parent.parent / "configs" / "ud.cfg"
    train_stages(config, tmp_path, {}, 0)
    train_stages(config, tmp_path, {})
    assert seen == [0, -1]


def test_train_refuses_a_file_that_is_no_config_and_a_missing_corpus_in_one_line(tmp_path):
    """``train`` given a file that is not a config (E088), a config that is
    not there (E031) or a corpus that is not there (E031): one line, exit 1,
    no output folder."""
    from pathlib import Path

    ud = Path(__file__).parent.parent / "configs" / "ud.cfg"
    bad = tmp_path / "bad.cfg"
    bad.write_text("not a config\n", encoding="utf-8")
    cases = {"E088": [str(bad)], "E031": [str(tmp_path / "none.cfg")],
             "missing.spacy: file not found": [str(ud), "--paths.train", str(tmp_path / "missing.spacy"),
                                               "--paths.dev", str(ud)]}
    for i, (said, args) in enumerate(cases.items()):
        out = tmp_path / f"out{i}"
        r = CliRunner().invoke(app, ["train", *args, "--output", str(out)])
        assert r.exit_code == 1 and said in r.output and len(r.output.strip().splitlines()) == 1, r.output
        assert not out.exists()


def test_train_names_where_a_misspelled_key_came_from(tmp_path):
    """A key nothing reads is named with where it was given: on the command line
    (``--training.max_epoch 1``), not as a fault of the config file; in the file, the file."""
    from pathlib import Path

    ud = Path(__file__).parent.parent / "configs" / "ud.cfg"
    corpus = ["--paths.train", str(fixture_path()), "--paths.dev", str(fixture_path("dev"))]
    r = CliRunner().invoke(app, ["train", str(ud), "--output", str(tmp_path / "out"), *corpus,
                                 "--training.max_epoch", "1"])
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
    assert "--training.max_epoch (on the command line): [training] has no setting 'max_epoch'" in r.output
    assert "max_epochs" in r.output and str(ud) not in r.output
    typo = tmp_path / "typo.cfg"
    typo.write_text(ud.read_text(encoding="utf-8").replace("max_epochs = 0", "max_epoch = 0"), encoding="utf-8")
    r = CliRunner().invoke(app, ["train", str(typo), "--output", str(tmp_path / "out"), *corpus])
    assert r.exit_code == 1 and f"{typo}: [training] has no setting 'max_epoch'" in r.output, r.output
    assert not (tmp_path / "out").exists()


def test_train_checks_its_data_before_it_says_anything(tmp_path):
    """A training or dev file that its reader refuses (a CoNLL-U sentence, a DocBin's bytes) is one
    line, exit 1, before the output folder is made or the training announced."""
    from pathlib import Path

    ud = Path(__file__).parent.parent / "configs" / "ud.cfg"
    bad = tmp_path / "bad.conllu"
    bad.write_text(fixture_path("dev").read_text(encoding="utf-8").replace("\t0\troot\t", "\t0\troot\textra\t", 1),
                   encoding="utf-8")
    not_docbin = tmp_path / "dev.spacy"
    not_docbin.write_bytes(b"\x78 not a DocBin")
    for train, dev, said in ((bad, fixture_path("dev"), "[E002] expected 10 tab-separated columns, found 11"),
                             (fixture_path(), not_docbin, "[E151]")):
        out = tmp_path / "out"
        r = CliRunner().invoke(app, ["train", str(ud), "--output", str(out), "--paths.train", str(train),
                                     "--paths.dev", str(dev)])
        assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1 and said in r.output, r.output
        assert "Created output directory" not in r.output and not out.exists()


def test_thirteen_commands_and_the_lab_and_every_help_fits_80_columns():
    """At most 13 user commands beside the `lab` group (issue 65's 12, and `upgrade`), and
    every command's --help, the group's and the lab's included, fits 80
    columns."""
    import typer.main

    top = typer.main.get_command(app)
    assert "lab" in top.commands and len(top.commands) - 1 <= 13, sorted(top.commands)
    commands = [[]] + [[name] for name in top.commands if name != "lab"]
    commands += [["lab"]] + [["lab", name] for name in top.commands["lab"].list_commands(None)]
    for command in commands:
        res = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
        assert res.exit_code == 0, command
        wide = [line for line in res.output.splitlines() if len(line) > 80]
        assert not wide, (command, wide)


def test_the_product_loads_nothing_of_the_lab(tmp_path):
    """Every product module imported, then `parse` run as a user runs it: no spacy_planar_lab
    module is loaded (the laboratory loads when `spacy-planar lab ...` is called)."""
    import subprocess
    import sys

    from conftest import fixture_path, small_parser

    model = small_parser(tmp_path / "model", 10, epochs=1)
    code = (
        "import pkgutil, importlib, sys, spacy_planar\n"
        "def walk(package):\n"  # pkgutil.walk_packages would import every package, the lab's too
        "    for m in pkgutil.iter_modules(package.__path__, package.__name__ + '.'):\n"
        "        module = importlib.import_module(m.name)\n"
        "        if m.ispkg:\n"
        "            walk(module)\n"
        "walk(spacy_planar)\n"
        "from typer.testing import CliRunner\n"
        "from spacy_planar.__main__ import app\n"
        f"r = CliRunner().invoke(app, ['parse', {str(model)!r}, {str(fixture_path('test'))!r}, "
        f"{str(tmp_path / 'out.conllu')!r}])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.startswith('spacy_planar_lab')))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip().splitlines()[-1] == "[]", res.stdout
    assert (tmp_path / "out.conllu").exists()
