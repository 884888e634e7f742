"""Every config trains with `spacy train` unchanged; every registered name resolves."""
import importlib.util
import inspect
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import spacy
from conftest import fixture_path, sample, shortest_docs
from spacy.tokens import DocBin
from spacy.util import registry

from spacy_planar.corpus.files import given_sentences
from spacy_planar.io.conllu import conllu_to_docs, read_conllu

# the configs of our systems, then the laboratory's anchors (configs/anchors/)
CONFIGS = (sorted(Path(__file__).resolve().parents[1].joinpath("configs").glob("*.cfg"))
           + sorted(Path(__file__).resolve().parents[1].joinpath("configs", "anchors").glob("*.cfg")))


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "small.spacy"
    vocab = spacy.blank("xx").vocab
    docs = shortest_docs(vocab, 40)
    DocBin(store_user_data=True, docs=docs).to_disk(path)
    return path


# each shipped config: the `spacy-planar init-config` (`lab anchor-config`) arguments that write it
ANCHOR = ["lab", "anchor-config"]
SOURCES = {"ud": ["arc_eager", "--tagging"], "ud_accurate": ["joint", "--tagging", "--accurate"],
           "ud_spacy_parser": [*ANCHOR, "spacy_parser", "--tagging"], "spacy_parser": [*ANCHOR, "spacy_parser"],
           "spacy_parser_cnn": [*ANCHOR, "spacy_parser_cnn"], "spacy_parser_small": [*ANCHOR, "spacy_parser_small"],
           "spacy_beam_parser": [*ANCHOR, "spacy_beam_parser"],
           "ud_trf": ["arc_eager", "--tagging", "--transformer"],
           "ud_taggers_first": ["arc_eager", "--tagging", "--taggers-first"]}
# the configs with a pretrained transformer: filled and trained where spacy-transformers is installed
# (tests/test_transformer.py trains one from a tiny local model; these would download theirs)
TRANSFORMER = ("ud_trf",)


def _needs_spacy_transformers(config: Path) -> None:
    if config.stem in TRANSFORMER:
        pytest.importorskip("spacy_transformers")


def test_the_shipped_configs():
    assert [c.stem for c in CONFIGS] == ["arc_eager", "biaffine", "joint", "planar", "swap", "top_down", "two_planar",
                                         "ud", "ud_accurate", "ud_taggers_first", "ud_trf",
                                         "spacy_beam_parser",
                                         "spacy_parser", "spacy_parser_cnn", "spacy_parser_small", "ud_spacy_parser"]


def test_the_anchors_are_spacys_parser_as_spacy_init_config_writes_it(tmp_path):
    """configs/spacy_parser_cnn.cfg's parser and tok2vec are those of `spacy
    init config --pipeline parser` (hidden 128, maxout 3): what users have
    today. configs/spacy_parser.cfg has the same parser with base.partial.cfg's
    tok2vec (the character CNN around spaCy's embedding, the encoder of our
    parsers), and so has the UD pipeline's comparison the taggers of
    `--pipeline tagger,morphologizer,parser`."""
    from thinc.api import Config

    def components(path):
        return Config().from_disk(path, interpolate=False)["components"]

    from spacy_planar.cli.init_config import RAW_TEXT

    for pipeline, ours, own_tok2vec in (("parser", "spacy_parser_cnn", True), ("parser", "spacy_parser", False),
                                        ("tagger,morphologizer,parser", "ud_spacy_parser", False)):
        out = tmp_path / f"{ours}.cfg"
        res = subprocess.run([sys.executable, "-m", "spacy", "init", "config", str(out), "--pipeline", pipeline,
                              "--lang", "xx", "--force"], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr[-2000:]
        theirs, mine = components(out), components(next(c for c in CONFIGS if c.stem == ours))
        assert mine["parser"]["model"]["hidden_width"] == 128 and mine["parser"]["model"]["maxout_pieces"] == 3
        for name in theirs:
            for part in ("model", "factory"):
                if name != "tok2vec" or (part == "model" and own_tok2vec):
                    got, want = mine[name][part], theirs[name][part]
                    assert got == want, (name, part)
        embed = mine["tok2vec"]["model"]["embed"]
        if own_tok2vec:
            assert embed == theirs["tok2vec"]["model"]["embed"]
        else:  # spaCy's own embedding, inside the character CNN
            assert embed["@architectures"] == "spacy-planar.CharEmbed.v3"
            assert embed["embed"] == theirs["tok2vec"]["model"]["embed"]
        # the UD pipeline's: spaCy's components, ours for raw text in front of them (raw_text.partial.cfg) and
        # our lemmatizer
        assert set(mine) == set(theirs) | (set(RAW_TEXT) | {"lemmatizer"} if ours.startswith("ud_") else set())


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_configs_are_the_base_merged_with_their_parser(config, tmp_path):
    """configs/X.cfg is what `spacy-planar init-config X` writes (the shared
    base with X's partial; configs/anchors/: `spacy-planar lab anchor-config`):
    edit spacy_planar/partials/ (lab/spacy_planar_lab/partials/), then rerun it."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    _needs_spacy_transformers(config)
    out = tmp_path / config.name
    args = SOURCES.get(config.stem, [config.stem])
    r = CliRunner().invoke(app, [*(args if args[0] == "lab" else ["init-config", *args]), str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8") == config.read_text(encoding="utf-8")


def test_init_config_takes_a_base_of_ones_own(tmp_path):
    from thinc.api import Config
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.cli.init_config import PARTS

    base = tmp_path / "base.partial.cfg"
    base.write_text((PARTS / "base.partial.cfg").read_text(encoding="utf-8").replace("dropout = 0.1", "dropout = 0.3"),
                    encoding="utf-8")
    r = CliRunner().invoke(app, ["init-config", "swap", str(tmp_path / "swap.cfg"), "--base", str(base)])
    assert r.exit_code == 0, r.output
    config = Config().from_disk(tmp_path / "swap.cfg", interpolate=False)
    assert config["training"]["dropout"] == 0.3
    assert config["components"]["planar_parser"]["transition_system"]["@transition_systems"] == "spacy-planar.swap.v1"
    r = CliRunner().invoke(app, ["init-config", "nope", str(tmp_path / "x.cfg")])
    assert r.exit_code == 1 and "unknown system 'nope'" in r.output
    # --tagging puts the taggers right after the tok2vec, however the base writes its list
    text = (PARTS / "base.partial.cfg").read_text(encoding="utf-8")
    spaced = text.replace('pipeline = ["tok2vec","planar_parser"]', 'pipeline = ["tok2vec", "planar_parser"]')
    assert spaced != text
    base.write_text(spaced, encoding="utf-8")
    r = CliRunner().invoke(app, ["init-config", "swap", str(tmp_path / "ud.cfg"), "--base", str(base), "--tagging"])
    assert r.exit_code == 0, r.output
    config = Config().from_disk(tmp_path / "ud.cfg", interpolate=False)
    assert config["nlp"]["pipeline"] == ["multiword_tokens", "senter", "tok2vec", "morphologizer", "tagger",
                                        "lemmatizer", "planar_parser"]
    base.write_text(text.replace('pipeline = ["tok2vec","planar_parser"]', 'pipeline = ["planar_parser"]'),
                    encoding="utf-8")
    r = CliRunner().invoke(app, ["init-config", "swap", str(tmp_path / "x.cfg"), "--base", str(base), "--tagging"])
    assert r.exit_code == 1 and "E086" in r.output and not (tmp_path / "x.cfg").exists()


def spacy_train(config: Path, out: Path, corpus: Path, **overrides) -> None:
    """What `spacy train CONFIG --output OUT --paths.train CORPUS --paths.dev
    CORPUS` runs (spaCy's train, 6 steps unless ``overrides`` say otherwise),
    in this process: a Python start and spaCy's import less per config. The
    command line itself is run by the raw-text workflow's test (`spacy
    project run`) and tests/test_stages.py."""
    from spacy.cli.train import train

    train(config, out, overrides={"paths.train": str(corpus), "paths.dev": str(corpus), "training.max_steps": 6,
                                  "training.eval_frequency": 3, **overrides})


# a config in two stages trains with spacy-planar train (tests/test_stages.py); spacy train refuses it
ONE_STAGE = [c for c in CONFIGS if c.stem not in TRANSFORMER + ("ud_taggers_first",)]


@pytest.mark.parametrize("config", ONE_STAGE, ids=[c.stem for c in ONE_STAGE])
def test_spacy_train_runs(config, small_corpus, tmp_path):
    spacy_train(config, tmp_path / "out", small_corpus)
    nlp = spacy.load(tmp_path / "out" / "model-last")
    doc = nlp(spacy.tokens.Doc(nlp.vocab, words=["jah", "qaþ", "imma", "."]))
    parser = next(pipe for name, pipe in nlp.pipeline if name in ("parser", "planar_parser", "biaffine_parser"))
    assert doc.has_annotation("DEP") and {t.dep_ for t in doc} <= set(parser.labels) | {"ROOT", "root", "dep"}
    if "spacy_" in config.stem:  # spaCy's parsers: the rest is ours
        return
    if config.stem in ("ud", "ud_accurate"):  # the taggers' output too
        tagged = nlp(spacy.tokens.Doc(nlp.vocab, words=["jah", "qaþ", "imma", "."]))
        assert tagged.has_annotation("POS") and tagged.has_annotation("TAG") and tagged.has_annotation("MORPH")
    # raw text in, valid UD out: one sentence per line, one root labelled root (a barely
    # trained model makes many headless words: single_root attaches them)
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app
    from spacy_planar.io.conllu import read_conllu

    text = tmp_path / "text.txt"
    text.write_text("jah qaþ imma .\n\nunte swa galaubida guþ þamma fairhwau , swaswe sunu seinana .\n",
                    encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "out" / "model-last"), str(text), str(tmp_path / "p.conllu")])
    assert r.exit_code == 0, r.output
    sents = list(read_conllu(tmp_path / "p.conllu"))
    assert [s.text for s in sents] == ["jah qaþ imma .",
                                       "unte swa galaubida guþ þamma fairhwau , swaswe sunu seinana ."]
    for s in sents:
        assert s.heads.count(0) == 1 and s.deprels[s.heads.index(0)] == "root"
    # the UD validator, level 2: the UD pipeline's output passes; a parser alone fails on its UPOS '_' only,
    # and parse says so in one line
    from spacy_planar.eval.official import validate

    passed, report = validate(tmp_path / "p.conllu", level=2)
    if config.stem in ("ud", "ud_accurate"):
        assert passed, report
    else:
        assert not passed and set(re.findall(r"\[L2 \w+ ([\w-]+)\]", report)) == {"unknown-upos"}, report
        assert sum("predicts no UPOS" in line for line in r.output.splitlines()) == 1
    # the same with the next best parses and the arc probabilities written (the biaffine: its arcs'
    # probabilities; a k-best list is the transition systems', not a reparse of two parsers')
    kbest = ["--kbest", "2"] if config.stem not in ("biaffine", "joint", "ud_accurate") else []
    if not kbest:
        r = CliRunner().invoke(app, ["parse", str(tmp_path / "out" / "model-last"), str(text),
                                     str(tmp_path / "k.conllu"), "--kbest", "2"])
        assert r.exit_code == 1 and ("E082" if config.stem == "biaffine" else "E158") in r.output
        assert not (tmp_path / "k.conllu").exists()
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "out" / "model-last"), str(text), str(tmp_path / "k.conllu"),
                                 *kbest, "--confidence"])
    assert r.exit_code == 0, r.output
    assert "HeadProb=" in (tmp_path / "k.conllu").read_text(encoding="utf-8")
    passed, report = validate(tmp_path / "k.conllu", level=2)
    if config.stem in ("ud", "ud_accurate"):
        assert passed, report
    else:
        assert not passed and set(re.findall(r"\[L2 \w+ ([\w-]+)\]", report)) == {"unknown-upos"}, report
    # a DocBin in (whatever its name): its words parsed, CoNLL-U out
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "out" / "model-last"), str(small_corpus),
                                 str(tmp_path / "d.conllu")])
    assert r.exit_code == 0, r.output
    from spacy_planar.io.conllu import read_docbin
    assert ([s.forms for s in read_conllu(tmp_path / "d.conllu")]
            == [[t.text for t in d] for d in read_docbin(small_corpus)])
    if config.stem == "ud":  # CoNLL-U in: the columns the pipeline predicts are its own, the others '_'
        from spacy_planar.io.conllu import ud_feats

        gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 5)
        for keep in ([], ["--keep-input-columns"]):  # or the input's, when asked
            r = CliRunner().invoke(app, ["parse", str(tmp_path / "out" / "model-last"), str(gold),
                                         str(tmp_path / "g.conllu"), "--validate", *keep])
            assert r.exit_code == 0, r.output
            for g, out in zip(read_conllu(gold), read_conllu(tmp_path / "g.conllu")):
                doc = next(given_sentences(nlp, [spacy.tokens.Doc(nlp.vocab, words=g.forms)]))
                assert out.upos == [t.pos_ for t in doc] and out.xpos == [t.tag_ for t in doc]
                assert out.feats == [ud_feats(str(t.morph)) or "_" for t in doc]
                assert out.lemmas == [t.lemma_ or "_" for t in doc]
                spacing = ["SpaceAfter=No" if "SpaceAfter=No" in m.split("|") else "_" for m in g.misc]
                assert out.misc == (g.misc if keep else spacing)  # the input's Traditional*, or only the spacing
            assert keep or any("TraditionalMood=" in m for g in read_conllu(gold) for m in g.misc)


def test_every_entry_point_resolves():
    from importlib import import_module
    from importlib.metadata import entry_points

    import_module("spacy_planar.parser.systems.registry")  # makes registry.transition_systems

    groups = {"spacy_factories": registry.factories, "spacy_architectures": registry.architectures,
              "spacy_scorers": registry.scorers, "spacy_callbacks": registry.callbacks,
              "spacy_readers": registry.readers, "spacy_batchers": registry.batchers, "spacy_misc": registry.misc,
              "thinc_transition_systems": registry.transition_systems}
    found = 0
    for group, reg in groups.items():
        for ep in entry_points(group=group):
            if not ep.value.startswith("spacy_planar."):
                continue
            func = ep.load()
            found += 1
            assert reg.get(ep.name) is not None
            if reg is registry.transition_systems:
                assert reg.get(ep.name) is func and func()(["obj"], "root").table.names()
    # 7 factories (the two parsers, the feature morphologizer, multiword_tokens, the lemmatizer, the senter,
    # the ensemble of pipelines),
    # 9 architectures (CharEmbed v3, Tok2Vec, the biaffine's v1 and v2), 2 scorers (the parser's, the senter's),
    # 3 callbacks (leave_out_unlabelled, numpy_blas, check_keys), the corpus reader and its batcher,
    # the biaffine's teacher (misc), 5 transition systems
    assert found == 30


@pytest.fixture(scope="module")
def swap_model(small_corpus, tmp_path_factory):
    """A pipeline trained by `spacy-planar train` on configs/swap.cfg (6
    steps), the time the command took, and 21 Gothic dev sentences as gold."""
    import time

    tmp = tmp_path_factory.mktemp("swap")
    config = [c for c in CONFIGS if c.stem == "swap"][0]
    out = tmp / "out"
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "train", str(config), "--output", str(out),
                          "--paths.train", str(small_corpus), "--paths.dev", str(small_corpus),
                          "--training.max_steps", "6", "--training.eval_frequency", "3"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    elapsed = time.perf_counter() - start
    gold = tmp / "gold.conllu"
    lines = fixture_path("dev").read_text(encoding="utf-8").split("\n")
    cut = [i for i, line in enumerate(lines) if not line][20]
    gold.write_text("\n".join(lines[:cut + 1]) + "\n", encoding="utf-8")
    return out / "model-last", gold, elapsed


@pytest.fixture(scope="module")
def swap_parsed(swap_model):
    """`parse --keep-input-columns` of the gold file by the swap pipeline."""
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    model, gold, _ = swap_model
    system = gold.parent / "sys.conllu"
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(system), "--keep-input-columns"])
    assert r.exit_code == 0, r.output
    return system


def _run(*args):
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    return CliRunner().invoke(app, [str(a) for a in args])


def test_train_records_its_own_time(swap_model):
    import json

    model, _, elapsed = swap_model
    # the training's own time: within the command's
    assert 0 < json.loads((model.parent / "train_seconds.json").read_text())["seconds"] < elapsed


def test_train_distils_any_of_our_parsers_into_the_biaffine(swap_model, small_corpus, tmp_path):
    """``train --teacher`` with the biaffine's config: a transition pipeline teaches it (its trees
    as head distributions, ``spacy-planar.ensemble_heads.v1``, resolved by its entry point in a
    fresh process), written into OUTPUT/teachers.cfg, and the student trains and parses."""
    from thinc.api import Config

    model, gold, _ = swap_model
    config = [c for c in CONFIGS if c.stem == "biaffine"][0]
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "train", str(config), "--output", str(out),
                          "--teacher", str(model), "--teacher-weight", "0.5", "--paths.train", str(small_corpus),
                          "--paths.dev", str(small_corpus), "--training.max_steps", "4",
                          "--training.eval_frequency", "2"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    taught = Config().from_disk(out / "teachers.cfg")["initialize"]["components"]["biaffine_parser"]
    assert taught == {"teachers": {"@misc": "spacy-planar.ensemble_heads.v1", "paths": [str(model.resolve())]},
                      "teacher_weight": 0.5}
    nlp = spacy.load(out / "model-last")
    assert nlp.get_pipe("biaffine_parser").teachers is None  # never saved with the student
    doc = nlp("gaf im qaþ")
    assert sum(t.head.i == t.i for t in doc) == 1


def test_parse_writes_the_inputs_lines_with_the_predicted_heads(swap_model, swap_parsed):
    _, gold, _ = swap_model
    first, rest = swap_parsed.read_text(encoding="utf-8").split("\n", 1)
    # the pipeline that wrote it, then the input's lines
    assert first.startswith("# pipeline = xx_pipeline-0.0.0 (sha1 ")
    for g, s in zip(gold.read_text(encoding="utf-8").split("\n"), rest.split("\n")):
        gc, sc = g.split("\t"), s.split("\t")
        if len(gc) == 10 and gc[0].isdigit():
            assert gc[:6] + gc[8:] == sc[:6] + sc[8:] and sc[6].isdigit() and sc[7] != "_"
        else:
            assert g == s


def _words(gold, system):
    rest = system.read_text(encoding="utf-8").split("\n", 1)[1]
    return [(g.split("\t"), x.split("\t")) for g, x in zip(gold.read_text(encoding="utf-8").split("\n"),
                                                           rest.split("\n"))
            if g.split("\t")[0].isdigit()]


def test_evaluate_is_the_official_scorer_and_ours(swap_model, swap_parsed):
    import json

    _, gold, _ = swap_model
    r = _run("evaluate", gold, swap_parsed, "--json")
    assert r.exit_code == 0, r.output
    # evaluate's UAS and LAS are the share of words whose head (and universal relation: the CoNLL 2018
    # scorer's LAS; whole label: ours) the system file has right
    words = _words(gold, swap_parsed)
    uas = 100.0 * sum(g[6] == x[6] for g, x in words) / len(words)
    las = 100.0 * sum(g[6] == x[6] and g[7].split(":")[0] == x[7].split(":")[0] for g, x in words) / len(words)
    whole = 100.0 * sum(g[6] == x[6] and g[7] == x[7] for g, x in words) / len(words)
    scored = json.loads(r.output)
    official = scored["official"]
    assert abs(official["UAS"] - uas) < 0.01 and abs(official["LAS"] - las) < 0.01
    assert abs(scored["LAS_whole_labels"] - whole) < 0.01
    from udtools import udeval
    want = udeval.evaluate(udeval.load_conllu_file(str(gold)), udeval.load_conllu_file(str(swap_parsed)))
    assert all(official[m] == 100 * want[m].f1 for m in ("UAS", "LAS", "CLAS"))
    assert scored["columns"] == dict.fromkeys(("LEMMA", "UPOS", "XPOS", "FEATS"), "copied") and "MLAS" not in official


def test_compare_runs_anchors_lengths_labels_and_touched_words(swap_model):
    model, gold, _ = swap_model
    r = _run("lab", "compare", gold, f"swap={model}", "-r", "1")
    assert r.exit_code == 0 and "| swap |" in r.output
    row = next(line for line in r.output.splitlines() if line.startswith("| swap |"))
    r = _run("lab", "compare", gold, f"swap={model}", f"swap={model}", "-r", "1", "--by-length")
    assert r.exit_code == 0, r.output
    runs = next(line for line in r.output.splitlines() if line.startswith("| swap (2 runs) |")).split(" | ")
    # against an anchor: the same model, no difference, p = 1
    r2 = _run("lab", "compare", gold, f"swap={model}", f"again={model}", "-r", "1", "--anchor", "swap")
    assert r2.exit_code == 0, r2.output
    assert next(line for line in r2.output.splitlines() if line.startswith("| again |")).endswith(" +0.00 (1.000) |")
    assert runs[1] == row.split(" | ")[1] + " ± 0.00" and runs[2] == row.split(" | ")[2] + " ± 0.00"
    # by length: the gold arcs of each bin add up to the words, the row has a UAS / LAS per bin
    lengths = [line for line in r.output.splitlines() if line.startswith(("| gold arcs |", "| swap |"))]
    n_arcs = [int(c.replace(",", "")) for c in lengths[0].strip("| ").split(" | ")[1:]]
    assert sum(n_arcs) == sum(1 for line in gold.read_text(encoding="utf-8").split("\n")
                              if line.split("\t")[0].isdigit())
    assert len(lengths[1].strip("| ").split(" | ")) == 6
    # then the long arcs' most frequent kinds: at most 8, within the 7+ bin, a UAS for each
    kinds, row = (line.strip("| ").split(" | ")[1:] for line in lengths[2:4])
    assert 0 < len(kinds) == len(row) <= 8 and sum(int(c.replace(",", "")) for c in kinds) <= n_arcs[-1]
    # by label, and over the words a tree transform touches (Nilsson 2007, Experiment II)
    r = _run("lab", "compare", gold, f"swap={model}", "-r", "1", "--labels", "conj,cc,xyz",
             "--touched", "coordination-ms")
    assert r.exit_code == 0, r.output
    head, _, cells = [line for line in r.output.splitlines() if line][-3:]
    assert "conj (" in head and "touched by coordination-ms (" in head
    conj, cc, xyz, ms = cells.strip("| ").split(" | ")[1:]
    assert 0 <= float(conj) <= 100 and xyz == "-" and len(ms.split(" / ")) == 2
    r = _run("lab", "compare", gold, f"swap={model}", "-r", "1", "--touched", "nope")
    assert r.exit_code == 1 and "E051" in r.output


def test_search_errors_and_stacks(swap_model, tmp_path):
    import json

    import spacy

    model, gold, _ = swap_model
    # search errors: the wrong trees split into those the model scores below gold and the rest
    r = _run("lab", "search-errors", model, gold, "--beam", "1", "--beam", "4", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["beam_width"] for x in rows] == [1, 4]
    for x in rows:
        assert x["sentences"] == 21 and x["search_errors"] + x["model_errors"] + x["not_rederived"] == x["wrong"] <= 21
    # stacks: the stack when each sentence's buffer first empties (swap: the root and the last word at least)
    r = _run("lab", "stacks", model, gold, "--json")
    assert r.exit_code == 0, r.output
    ends = json.loads(r.output)
    assert ends["sentences"] == sum(ends["stack_sizes"].values()) == 21 and ends["mean_stack"] >= 2
    assert "0" not in ends["stack_sizes"] and "1" not in ends["stack_sizes"]
    assert sum(ends["moves_after"].values()) >= 21  # at least one move each: the last arc
    spacy.blank("xx").to_disk(tmp_path / "blank")
    r = _run("lab", "stacks", tmp_path / "blank", gold)
    assert r.exit_code != 0 and "no planar_parser" in r.output


def test_bench_speed(swap_model, tmp_path):
    import json

    import spacy

    model, gold, _ = swap_model
    words = sum(1 for line in gold.read_text(encoding="utf-8").split("\n") if line.split("\t")[0].isdigit())
    r = _run("lab", "bench", "speed", gold, f"a={model}", f"b={model}", "-r", "1", "--busy", "1", "--json")
    assert r.exit_code == 0, r.output
    speeds = json.loads(r.output[r.output.index("{"):])
    assert speeds["a"]["words"] == speeds["b"]["words"] == words  # every word of the file, each time
    assert abs(speeds["b"]["ratio"] - speeds["b"]["words_per_s"] / speeds["a"]["words_per_s"]) < 1e-9
    # a beam for one NAME: the same model under two names, one parsing with a beam of 4
    r = _run("lab", "bench", "speed", gold, f"a={model}", f"b={model}", "-r", "2", "--beam", "b=4", "--json")
    assert r.exit_code == 0, r.output
    beam = json.loads(r.output[r.output.index("{"):])["b"]
    assert beam["words"] == words and beam["words_per_s"] == pytest.approx(words / beam["best_s"])
    assert beam["best_s"] <= beam["median_s"] <= beam["max_s"]  # the best of the repeats
    spacy.blank("xx").to_disk(tmp_path / "blank")
    r = _run("lab", "bench", "speed", gold, f"a={tmp_path / 'blank'}", "-r", "1", "--beam", "a=4")
    assert r.exit_code == 1 and "no planar_parser" in r.output


def test_compare_with_a_beam(swap_model):
    model, gold, _ = swap_model
    r = _run("lab", "compare", gold, f"greedy={model}", f"beam={model}", "-r", "1", "--anchor", "greedy",
             "--beam", "beam=4")
    assert r.exit_code == 0, r.output
    assert any(line.startswith("| beam |") for line in r.output.splitlines())
    r = _run("lab", "compare", gold, f"beam={model}", "-r", "1", "--beam", "beam=4+merge")
    assert r.exit_code == 0 and any(line.startswith("| beam |") for line in r.output.splitlines()), r.output
    for bad in ("beam=0", "beam", "beam=4+x"):
        r = _run("lab", "compare", gold, f"beam={model}", "-r", "1", "--beam", bad)
        assert r.exit_code == 1 and "E087" in r.output


def test_bench_lengths(swap_model, tmp_path):
    """Parse time by sentence length, and its curve."""
    import json

    model, gold, _ = swap_model
    svg = tmp_path / "lengths.svg"
    r = _run("lab", "bench", "lengths", gold, f"a={model}", f"b={model}", "-r", "1", "--bin", "10", "--beam", "b=4",
             "--svg", svg, "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output[r.output.index("{"):r.output.rindex("}") + 1])
    # the gold's sentences by length in bins of 10 words, those with 5 sentences or more, each timed
    lengths = [len(s) for s in read_conllu(gold)]
    want = {f"{b * 10 + 1}-{(b + 1) * 10}": n for b, n in Counter((n - 1) // 10 for n in lengths).items() if n >= 5}
    assert {k: row["sentences"] for k, row in rows.items()} == want
    assert all(row["a"] > 0 and row["b"] > 0 for row in rows.values())
    assert svg.read_text().count("<polyline") == 2


def test_bench_train(small_corpus):
    import json

    config = [c for c in CONFIGS if c.stem == "swap"][0]
    r = _run("lab", "bench", "train", small_corpus, f"swap={config}", "--steps", "2", "--warmup", "1", "-r", "2",
             "--threads", "1", "--profile", "--memory", "--json", "--at-step", "3", "--epoch")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output[r.output.index("{\n"):r.output.rindex("}") + 1])
    # one row per config and thread setting, its best round's words/s, the ratio to itself 1; then the
    # next whole epoch of the stream
    (key, row), (epoch_key, epoch_row) = out["rows"].items()
    assert key == "swap, 1 thread" and row["words"] > 0
    steps_left = int(re.match(r"swap, a whole epoch \((\d+) steps\), 1 thread$", epoch_key).group(1))
    assert steps_left >= 1 and epoch_row["words"] > 0
    assert row["words_per_s"] == pytest.approx(row["words"] / row["best_s"]) and row["ratio"] == 1.0
    # the profile: shares of the whole, the oracle among them (swap's training asks it), and the
    # components' own time a step, the parser's update and the shared encoder's among them
    profile = out["profile"]["swap"]
    assert sum(profile["share"].values()) == pytest.approx(1.0) and profile["share"]["oracle"] > 0
    assert {"planar_parser.update", "tok2vec.update", "planar_parser.finish_update"} <= set(
        profile["component_s_per_step"])
    # the most a step allocated: some megabytes (the encoder's activations and gradients), its words
    memory = out["memory"]["swap"]
    assert 0.1 < memory["peak_mb"] < 2000 and memory["words"] > 0 and memory["steps"] == 2



def test_the_lab_benches_say_one_line_for_what_is_not_there(small_corpus, tmp_path):
    """``lab bench train`` without its config or corpus, ``lab bench memory`` without its
    pipeline: one line with the code, exit 1, before anything is built or generated."""
    config = [c for c in CONFIGS if c.stem == "arc_eager"][0]
    for args, code in ((["train", small_corpus, f"a={tmp_path / 'none.cfg'}"], "E031"),
                       (["train", tmp_path / "none.spacy", f"a={config}"], "E031"),
                       (["memory", tmp_path / "no_pipeline", small_corpus, "--words", "10"], "E116")):
        r = _run("lab", "bench", *args)
        assert r.exit_code == 1 and code in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_spacy_init_labels(small_corpus, tmp_path):
    import json

    config = [c for c in CONFIGS if c.stem == "arc_eager"][0]
    res = subprocess.run([sys.executable, "-m", "spacy", "init", "labels", str(config), str(tmp_path),
                          "--paths.train", str(small_corpus), "--paths.dev", str(small_corpus)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    labels = json.loads((tmp_path / "planar_parser.json").read_text())
    assert "root" in labels and "nsubj" in labels
    assert not any("\u2191" in l or "\u2193" in l for l in labels)  # decorated labels stay inside


def test_project_takes_every_setting_from_the_configs():
    """project.yml trains the shipped configs as they are: its commands
    override paths, epochs, the language and the device, no component's
    setting (the configs, from the factory's defaults, are the one source)."""
    import srsly
    root = Path(__file__).resolve().parents[1]
    project = srsly.read_yaml(root / "project.yml")
    lines = [line for command in project["commands"] for line in command.get("script", []) if " train " in line]
    assert len(lines) >= 5
    assert project["vars"]["ud_config"].startswith("configs/")
    for line in lines:
        assert "--components." not in line and ("configs/" in line or "${vars.ud_config}" in line)
    # the one option of the vectors command it names: at the command's default
    from spacy_planar.cli.vectors import DEFAULTS

    assert project["vars"]["vectors_bucket"] == DEFAULTS["bucket"]


def test_add_pipe_is_the_shipped_default_system():
    """``nlp.add_pipe("planar_parser")`` is configs/arc_eager.cfg's parser:
    every setting and the model's, the tok2vec apart (its own there, base.partial.cfg's
    encoder without static vectors; a listener of the shared one in the config)."""
    from thinc.api import Config
    nlp = spacy.blank("xx")
    nlp.add_pipe("planar_parser")
    added = nlp.config["components"]["planar_parser"]
    shipped = Config().from_disk(next(c for c in CONFIGS if c.stem == "arc_eager"), interpolate=False)
    parser = shipped["components"]["planar_parser"]
    own, listener = added["model"].pop("tok2vec"), parser["model"].pop("tok2vec")
    assert added == parser
    assert listener["@architectures"] == "spacy.Tok2VecListener.v1"
    base = shipped["components"]["tok2vec"]["model"]
    assert base["embed"]["width"] == "${components.tok2vec.model.encode.width}"

    def filled(section):  # the width and dropout as the shared tok2vec's config resolves them, no raw-text inputs
        values = {base["embed"]["width"]: base["encode"]["width"], "${paths.vectors}": None,
                  "${training.dropout}": shipped["training"]["dropout"]}
        return {k: filled(v) if isinstance(v, dict) else (values[v] if isinstance(v, str) and v in values else v)
                for k, v in section.items()}

    assert own == filled(base) and own["embed"]["@architectures"] == "spacy-planar.CharEmbed.v3"
    assert base["embed"]["static_vectors"] == "${paths.vectors}" and own["embed"]["static_vectors"] is None


def _without_columns(src: Path, dest: Path, columns) -> Path:
    """The first 60 sentences of a CoNLL-U file with ``columns`` (3: UPOS,
    4: XPOS, 5: FEATS) blanked, converted to a DocBin."""
    out, sents = [], 0
    for line in src.read_text(encoding="utf-8").splitlines():
        if not line:
            sents += 1
            if sents == 60:
                break
        elif not line.startswith("#"):
            cols = line.split("\t")
            cols = [("_" if i in columns else c) for i, c in enumerate(cols)]
            line = "\t".join(cols)
        out.append(line)
    conllu = dest.with_suffix(".conllu")
    conllu.write_text("\n".join(out) + "\n\n", encoding="utf-8")
    DocBin(store_user_data=True, docs=list(conllu_to_docs(conllu, spacy.blank("xx").vocab))).to_disk(dest)
    return dest


@pytest.mark.parametrize("columns,left_out", [((4,), ["tagger"]), ((2, 3, 4, 5), ["morphologizer", "tagger",
                                                                                  "lemmatizer"]),
                                              ((5,), [])], ids=["no XPOS", "no tags or lemmas", "no FEATS"])
def test_ud_config_trains_on_a_treebank_without_a_column(columns, left_out, tmp_path, capsys):
    """configs/ud.cfg on a treebank whose XPOS (or UPOS, FEATS and LEMMA) column is
    empty: `spacy train` leaves the component that would have no label out,
    says so in one line each, and trains the rest (spaCy's tagger would stop
    with E143)."""
    corpus = _without_columns(fixture_path(), tmp_path / "train.spacy", columns)
    spacy_train(CONFIGS[0].parent / "ud.cfg", tmp_path / "out", corpus,
                **{"training.max_steps": 4, "training.eval_frequency": 2})
    said = capsys.readouterr().out
    assert re.findall(r"(\w+): \S+ has no [A-Za-z ()]+; left out of the pipeline", said) == left_out
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names == [p for p in ["multiword_tokens", "senter", "tok2vec", "morphologizer", "tagger",
                                          "lemmatizer", "planar_parser"] if p not in left_out]
    doc = next(given_sentences(nlp, [spacy.tokens.Doc(nlp.vocab, words=["jah", "qaþ", "imma", "."])]))
    assert sum(t.head == t for t in doc) == 1


def test_project_takes_any_ud_treebank_by_variables():
    """project.yml's asset for one's own treebank is named by variables: its code and its
    repository give the three splits' URLs and destinations (the zoo's are `extra`)."""
    from weasel.util import load_project_config

    root = Path(__file__).resolve().parents[1]
    config = load_project_config(root, overrides={"vars.treebank": "la_ittb", "vars.ud_repo": "UD_Latin-ITTB"})
    own = [a for a in config["assets"] if not a.get("extra")]
    urls = sorted(a["url"] for a in own)
    assert urls == [f"https://raw.githubusercontent.com/UniversalDependencies/UD_Latin-ITTB/master/la_ittb-ud-{s}.conllu"
                    for s in ("dev", "test", "train")]
    assert sorted(a["dest"] for a in own) == [f"assets/ud/la_ittb/{s}.conllu" for s in ("dev", "test", "train")]


ZOO = {"zoo-la": ("zoo-fetch-la", ["zoo-latin"]), "zoo-got": ("zoo-fetch-got", ["zoo-gothic"]),
       "zoo-cu": ("zoo-fetch-cu", ["zoo-slavonic"])}


def _project_yml() -> dict:
    """project.yml as written (its ${vars...} not filled in)."""
    import yaml

    return yaml.safe_load((Path(__file__).resolve().parents[1] / "project.yml").read_text(encoding="utf-8"))


def _zoo_fetched(script: str):
    """The files a `lab fetch-ud` line fetches: ud_dir/<code>/<split>.conllu, and its --raw."""
    words = script.split()
    files = set()
    for spec in words[words.index("fetch-ud") + 1:]:
        if spec.startswith("--"):
            break
        code, _, rest = spec.partition("=")
        splits = rest.partition(":")[2] or "train,dev,test"
        files |= {f"${{vars.ud_dir}}/{code}/{split}.conllu" for split in splits.split(",")}
    if "--raw" in words:
        files.add(words[words.index("--raw") + 1])
    return files


def test_each_zoo_workflow_fetches_only_what_it_builds_from():
    """`spacy project run zoo-la .` (and zoo-got, zoo-cu; zoo runs all three): its first step
    fetches (`lab fetch-ud`, where ud_dir lacks them) exactly the treebank files and raw text its
    build reads, nothing of another language's; the builds read ud_dir, not a folder of their own."""
    config = _project_yml()
    commands = {c["name"]: c for c in config["commands"]}
    for workflow, (fetch, builds) in ZOO.items():
        assert config["workflows"][workflow] == [fetch, *builds]
        (script,) = commands[fetch]["script"]
        needed = {dep for build in builds for dep in commands[build]["deps"] if not dep.startswith("configs/")}
        assert _zoo_fetched(script) == needed, workflow
        assert all(dep.startswith("${vars.ud_dir}/") or dep == "${vars.la_raw}" for dep in needed)
    assert config["workflows"]["zoo"] == [step for fetch, builds in ZOO.values() for step in (fetch, *builds)]
    assert "assets/zoo/" not in " ".join(" ".join(c["script"]) for c in commands.values())


OFFLINE = {"https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "no_proxy": "", "NO_PROXY": ""}


def test_the_zoo_fetch_with_local_treebanks_needs_no_network(tmp_path):
    """Given a ud_dir that holds Latin's files and la_raw, zoo-la's fetch step fetches nothing
    (every host unreachable); a file that is missing is one line naming it and how to give it
    locally, exit 1, nothing written."""
    config = _project_yml()
    (script,) = next(c for c in config["commands"] if c["name"] == "zoo-fetch-la")["script"]
    ud, raw = tmp_path / "ud", tmp_path / "latin.txt"
    raw.write_text("Gallia est omnis divisa in partes tres.\n", encoding="utf-8")
    for path in _zoo_fetched(script) - {"${vars.la_raw}"}:
        target = ud / path.replace("${vars.ud_dir}/", "")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(fixture_path("dev"), target)
    line = script.replace("${vars.ud_dir}", str(ud)).replace("${vars.la_raw}", str(raw))
    line = line.replace("${vars.ud_release}", config["vars"]["ud_release"]).replace("python ", f"{sys.executable} ", 1)
    env = {**os.environ, **OFFLINE}
    res = subprocess.run(line.split(), capture_output=True, text=True, env=env)
    assert res.returncode == 0 and "0 fetched, 4 already there" in " ".join(res.stdout.split()), res.stdout + res.stderr
    (ud / "la_llct" / "train.conllu").unlink()
    before = sorted(p for p in tmp_path.rglob("*"))
    res = subprocess.run(line.split(), capture_output=True, text=True, env=env)
    out = (res.stdout + res.stderr).strip().splitlines()
    assert res.returncode == 1 and len(out) == 1 and "Traceback" not in res.stderr, res.stdout + res.stderr
    assert "E171" in out[0] and "la_llct/train.conllu" in out[0] and "--vars.ud_dir" in out[0], out
    assert sorted(p for p in tmp_path.rglob("*")) == before  # nothing half-written


@pytest.mark.slow  # half a minute of processes: .ci/run runs it (-m slow)
def test_the_raw_text_workflow_runs_from_variables(tmp_path):
    """`spacy project run raw` with --vars naming a treebank folder and a raw
    corpus (here: 30 sentences of the test treebank, Latin, the rest of its
    text compressed, one epoch, vectors of 20,000 rows):
    vectors, both trainings and the comparison, in a copy of the project."""
    import lzma
    import shutil

    root = Path(__file__).resolve().parents[1]
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(root / "project.yml", project)
    shutil.copytree(root / "configs", project / "configs")
    ud = tmp_path / "ud" / "la_udante"
    ud.mkdir(parents=True)
    for split, n in (("train", 30), ("dev", 10), ("test", 10)):
        sample(fixture_path(split), ud / f"{split}.conllu", n)
    text = " ".join(s.text for s in read_conllu(fixture_path()) if s.text)
    with lzma.open(tmp_path / "raw.txt.xz", "wt", encoding="utf-8") as f:
        f.write("\n".join(text[i:i + 200] for i in range(0, len(text), 200)) + "\n")
    cmd = [sys.executable, "-m", "spacy", "project", "run", "raw", str(project), "--vars.treebank", "la_udante",
           "--vars.lang", "la", "--vars.ud_dir", str(tmp_path / "ud"), "--vars.raw_text", str(tmp_path / "raw.txt.xz"),
           "--vars.ud_epochs", "1", "--vars.vectors_bucket", "20000"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=project)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    table = (project / "metrics" / "la_udante" / "raw.md").read_text(encoding="utf-8")
    assert "| ud |" in table and "| ud_vectors |" in table
    nlp = spacy.load(project / "training" / "la_udante" / "ud_vectors" / "model-best")
    assert nlp.vocab.vectors.mode == "floret" and nlp.lang == "la"
    assert "UPOS (CoNLL 2018)" in res.stdout


def test_the_readme_options_table_says_the_factory_defaults():
    """The Options table (docs/design.md) gives each planar_parser setting's default in
    brackets (first, before any config's own): the factory's default_config's."""
    import json

    from spacy.language import Language

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "design.md").read_text(encoding="utf-8").split("## The component's options\n", 1)[1]
    text = text.split("\n## ", 1)[0]
    rows = {name: row.rsplit(" [", 1)[1][:-len("] |")]  # the bracket that ends the row
            for name, row in re.findall(r"^\| `([\w.]+)` \|(.*\] \|)$", text, re.M)}
    import spacy_planar.parser  # noqa: F401 (registers the factory)

    defaults = Language.get_factory_meta("planar_parser").default_config
    plain = {k: v for k, v in defaults.items() if not isinstance(v, dict) and k not in ("scorer",)}
    assert set(plain) <= set(rows), sorted(set(plain) - set(rows))
    for key, value in plain.items():
        said = rows[key].split(";")[0].strip()
        assert said == (value if isinstance(value, str) else json.dumps(value)), (key, said, value)
    # the system, and its options' defaults as the registered function has them (catalog.py)
    name = defaults["transition_system"]["@transition_systems"]
    options = inspect.signature(registry.transition_systems.get(name)).parameters
    assert rows["transition_system"] == ", ".join([name.split(".")[1]] + [str(p.default) for p in options.values()])


def test_the_transformer_config_is_the_ud_pipeline_listening_to_a_transformer():
    """configs/ud_trf.cfg is configs/ud.cfg with spacy-transformers' encoder
    in the tok2vec's place: the same taggers and parser, each listening to
    the transformer (a word the mean of its pieces), the same corpora."""
    from thinc.api import Config

    def read(stem):
        return Config().from_disk(next(c for c in CONFIGS if c.stem == stem), interpolate=False)

    ud, trf = read("ud"), read("ud_trf")
    assert trf["nlp"]["pipeline"] == ["transformer" if p == "tok2vec" else p for p in ud["nlp"]["pipeline"]]
    assert trf["components"]["transformer"]["model"]["name"] == "${paths.transformer}"
    assert trf["paths"]["transformer"] == "xlm-roberta-base"
    for name in ("morphologizer", "tagger", "planar_parser"):
        listener = trf["components"][name]["model"].pop("tok2vec")
        assert listener["@architectures"] == "spacy-transformers.TransformerListener.v1"
        assert listener["pooling"] == {"@layers": "reduce_mean.v1"}
        ud["components"][name]["model"].pop("tok2vec")
        assert trf["components"][name] == ud["components"][name]
    assert trf["corpora"]["train"] == ud["corpora"]["train"]


def test_a_transformer_config_without_spacy_transformers_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from spacy_planar.__main__ import app

    if importlib.util.find_spec("spacy_transformers") is not None:
        pytest.skip("spacy-transformers is installed here")
    r = CliRunner().invoke(app, ["init-config", "arc_eager", str(tmp_path / "x.cfg"), "--tagging", "--transformer"])
    assert r.exit_code == 1 and "E123" in r.output and "spacy-planar[trf]" in r.output
    assert not (tmp_path / "x.cfg").exists()
