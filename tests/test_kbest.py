"""k-best parses and arc probabilities: the k best trees are distinct, valid,
sorted, the first the one on Token.head, through to_disk / from_disk; off,
nothing extra is computed; written to CoNLL-U that the UD validator accepts;
scored (k-best oracle LAS, calibration) and calibrated on held-out data."""
import json
import re
import xml.etree.ElementTree as ET
from itertools import islice

import numpy as np
import pytest
import spacy
from conftest import fixture_path, sample, small_parser
from spacy.tokens import Doc
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.errors import UserError
from spacy_planar.eval.official import validate
from spacy_planar.io.conllu import read_conllu
from spacy_planar.eval.render import reliability_svg
from spacy_planar.parser.transition.kbest import (
    arc_confidence,
    arc_probabilities,
    at_temperature,
    distinct_parses,
    fit_calibration,
    isotonic,
)
from spacy_planar.eval.metrics import calibration
from spacy_planar.trees.algorithms import tree_error

BEAM = {"beam_width": 8, "n_best": 4}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """Arc-eager (pseudo-projective: its k-best trees are decoded too),
    trained a little on 120 sentences of the test treebank."""
    return small_parser(tmp_path_factory.mktemp("kbest") / "model", 120, epochs=4, batch_size=20)


@pytest.fixture(scope="module")
def dev_words():
    return [s.forms for s in islice(read_conllu(fixture_path("dev")), 60)]


def ud_tree(doc, sent):
    return ([0 if t.head.i == t.i else t.head.i - sent.start + 1 for t in sent],
            ["root" if t.dep_ == "ROOT" else t.dep_ for t in sent])


def parsed(nlp, words):
    return list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))


def test_the_k_best_are_distinct_valid_sorted_and_the_first_is_the_parse(model, dev_words, tmp_path):
    nlp = spacy.load(model, config={"components": {"planar_parser": BEAM}})
    docs = parsed(nlp, dev_words)
    several = 0
    for doc in docs:
        for sent in doc.sents:
            parses = sent._.parses
            assert 1 <= len(parses) <= 4
            several += len(parses) > 1
            probs = [p["prob"] for p in parses]
            assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1 + 1e-9
            trees = [(tuple(p["heads"]), tuple(p["labels"])) for p in parses]
            assert len(set(trees)) == len(trees)
            for heads, labels in trees:
                assert tree_error(list(heads)) is None and heads.count(0) == 1 and len(heads) == len(sent)
                assert not any("\u2191" in label or "|" in label for label in labels)  # decoded
            heads, labels = ud_tree(doc, sent)
            assert (parses[0]["heads"], parses[0]["labels"]) == (heads, labels)
            assert all(0 <= t._.head_prob <= 1 for t in sent)
        assert doc._.parses == [s._.parses for s in doc.sents]
    assert several > len(docs) // 2  # the beam holds alternatives
    nlp.to_disk(tmp_path / "again")
    back = parsed(spacy.load(tmp_path / "again"), dev_words)
    assert [d._.parses for d in back] == [d._.parses for d in docs]
    assert [[t._.head_prob for t in d] for d in back] == [[t._.head_prob for t in d] for d in docs]


def test_without_n_best_nothing_extra_is_computed(model, dev_words, monkeypatch):
    """n_best 1: the same trees from the same beam, no parses, no
    probabilities, and only each sentence's best final state decoded."""
    with_k = parsed(spacy.load(model, config={"components": {"planar_parser": BEAM}}), dev_words)
    nlp = spacy.load(model, config={"components": {"planar_parser": {"beam_width": 8}}})
    system = nlp.get_pipe("planar_parser").system
    decoded = []
    original = type(system).output_trees
    monkeypatch.setattr(type(system), "output_trees",
                        lambda self, st, rows=None, decode=True: decoded.append(len(rows)) or original(self, st, rows,
                                                                                                       decode))
    plain = parsed(nlp, dev_words)
    assert sum(decoded) == len(dev_words)
    assert [[(t.head.i, t.dep_) for t in d] for d in plain] == [[(t.head.i, t.dep_) for t in d] for d in with_k]
    assert all(d._.parses is None and d[0]._.head_prob is None for d in plain)
    with pytest.raises(UserError, match="E066"):
        spacy.load(model, config={"components": {"planar_parser": {"beam_width": 4, "n_best": 5}}})


def test_distinct_parses_keep_each_trees_best_derivation():
    a, b = ([2, 0], ["x", "root"]), ([0, 1], ["root", "x"])
    parses = distinct_parses([(-2.0, b), (-1.0, a), (-1.5, a)], temperature=1.0)
    assert [(h, l) for _, h, l in parses] == [a, b]
    assert parses[0][0] == pytest.approx(1 / (1 + np.exp(-1.0)))
    hot = at_temperature(parses, 1e6)
    assert [p for p, _, _ in hot] == pytest.approx([0.5, 0.5])
    assert arc_probabilities(parses, *a).tolist() == pytest.approx([parses[0][0], parses[0][0]])


def test_arc_confidence_ranks_the_arcs_the_beam_agrees_on():
    """Where every parse of the beam agrees (marginal 1), the move that made
    the arc tells the arcs apart; the sentence's moves scale them all."""
    a, b = ([2, 0, 2], ["x", "root", "y"]), ([2, 0, 1], ["x", "root", "y"])
    parses = [(0.75, *a), (0.25, *b)]
    logp = np.log([0.9, 1.0, 0.6])
    conf = arc_confidence(parses, *a, logp)
    g = np.exp(logp.mean())
    assert conf.tolist() == pytest.approx([0.9 * np.sqrt(g), np.sqrt(g), 0.75 * 0.6 * np.sqrt(g)])
    assert conf[1] > conf[0]  # both unanimous: the surer move first
    assert arc_confidence(parses, *a, [0.0, 0.0, 0.0]).tolist() == pytest.approx([1.0, 1.0, 0.75])


def test_isotonic_calibration_and_its_error():
    rng = np.random.default_rng(0)
    x = np.r_[rng.random(5000), np.ones(5000)]  # a beam's marginals: many at 1
    y = (rng.random(10000) < np.r_[x[:5000] ** 2, np.full(5000, 0.8)]).astype(float)
    assert calibration(x, y).ece > 0.15
    kx, ky = isotonic(x, y)
    assert np.all(np.diff(ky) >= 0) and calibration(np.interp(x, kx, ky), y).ece < 0.02
    cal = calibration([0.05, 0.95, 0.95], [0, 1, 0])
    assert cal.ece == pytest.approx((0.05 + 2 * abs(0.5 - 0.95)) / 3)
    svg = reliability_svg(cal, title="t")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and "ECE 0.317" in svg
    # no two labels on one line where they could meet: the x axis's own label a line (11 px type) below its ticks'
    texts = [(float(t.get("x")), float(t.get("y")), t.text) for t in root.iter() if t.tag.endswith("text")
             and "transform" not in t.attrib]
    ticks = [y for x, y, text in texts if text in ("0", "0.5", "1") and x > 60]  # the x axis's tick labels
    (label_y,) = [y for _, y, text in texts if text == "arc probability"]
    assert ticks and label_y - max(ticks) >= 14 and label_y <= float(root.get("height"))


def test_fit_calibration_prefers_what_matches():
    gold = ([2, 0, 2], ["a", "root", "b"])
    wrong = ([3, 3, 0], ["a", "b", "root"])
    # the beam puts 0.9 on a tree that is right 3 times in 4
    data = [([(0.9, *(gold if i % 4 else wrong)), (0.1, *(wrong if i % 4 else gold))], [0.0, 0.0, 0.0], *gold)
            for i in range(40)]
    fitted = fit_calibration(data)
    assert fitted["ece"] < 0.05 < fitted["ece_raw"]


def test_kbest_and_confidence_in_conllu_scored_and_calibrated(model, tmp_path):
    dev = sample(fixture_path("dev"), tmp_path / "dev.conllu", 80)
    out = tmp_path / "kbest.conllu"
    # the input's UPOS kept (a parser alone predicts none, and the validator wants them)
    r = CliRunner().invoke(app, ["parse", str(model), str(dev), str(out), "--kbest", "3", "--confidence",
                                 "--keep-input-columns"])
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    ids = re.findall(r"^# sent_id = (.*)$", text, re.M)
    assert any(i.endswith("/3") for i in ids) and len(re.findall(r"^# parse_prob = ", text, re.M)) == len(ids)
    assert "HeadProb=" in text
    passed, report = validate(out, level=2)
    assert passed, report[-2000:]
    r = CliRunner().invoke(app, ["evaluate", str(dev), str(out), "--json", "--diagram", str(tmp_path / "rel.svg")])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    oracle = res["kbest_oracle_LAS"]
    assert oracle["1"] == pytest.approx(res["official"]["LAS"]) and oracle["3"] >= oracle["2"] >= oracle["1"]
    assert (tmp_path / "rel.svg").exists()
    # the calibration figures are those of the best parses' HeadProb against the gold, worked out here apart
    arc_p, arc_right = [], []
    for g, s in zip(read_conllu(dev), (x for x in read_conllu(out)
                                           if not any(re.match(r"# sent_id = .*/\d+$", c) for c in x.comments))):
        for gh, gl, sh, sl, misc in zip(g.heads, g.deprels, s.heads, s.deprels, s.misc):
            arc_p.append(float(re.search(r"HeadProb=([0-9.]+)", misc).group(1)))
            arc_right.append(gh == sh and gl == sl)
    arc_p, arc_right = np.array(arc_p), np.array(arc_right)
    assert res["calibration"]["arcs"] == len(arc_p) == sum(len(g) for g in read_conllu(dev))
    bins = np.minimum((arc_p * 10).astype(int), 9)
    ece = sum(abs(arc_right[bins == b].mean() - arc_p[bins == b].mean()) * (bins == b).sum()
              for b in range(10) if (bins == b).any()) / len(arc_p)
    assert res["calibration"]["ECE"] == pytest.approx(ece)
    arc_wrong = arc_p[~arc_right]
    pairs = [(p > q) + 0.5 * (p == q) for p in arc_p[arc_right] for q in arc_wrong]
    r = CliRunner().invoke(app, ["calibrate", str(model), str(dev), str(tmp_path / "calibrated")])
    assert r.exit_code == 0, r.output
    pipe = spacy.load(tmp_path / "calibrated").get_pipe("planar_parser")
    cal = pipe.cfg["calibration"]
    assert cal["x"] and cal["temperature"] > 0 and pipe.settings.beam_width == 1  # the settings stay the model's
    words = [s.forms for s in read_conllu(dev)]
    docs = parsed(spacy.load(tmp_path / "calibrated", config={"components": {"planar_parser": BEAM}}), words)
    probs = np.array([t._.head_prob for d in docs for t in d])
    # inside the map's range, as stored (Token._.head_prob keeps 4 decimals)
    assert probs.min() >= round(min(cal["y"]), 4) and probs.max() <= round(max(cal["y"]), 4)
    # a map fitted to another confidence (an earlier version's beam marginal) is refused, in one line
    old = spacy.load(tmp_path / "calibrated")
    old.get_pipe("planar_parser").settings.calibration.pop("confidence")
    old.to_disk(tmp_path / "old")
    r = CliRunner().invoke(app, ["parse", str(tmp_path / "old"), str(dev), str(tmp_path / "x.conllu"), "--confidence"])
    assert r.exit_code == 1 and "E110" in r.output and not (tmp_path / "x.conllu").exists(), r.output
    res_rank = res["calibration"]
    assert res_rank["Brier"] == pytest.approx(np.mean((arc_p - arc_right) ** 2))
    assert res_rank["AUROC"] == pytest.approx(np.mean(pairs))

    # render shades each arc by the HeadProb the file gives it
    r = CliRunner().invoke(app, ["render", str(out), str(tmp_path / "first.svg"), "--sentence", "1"])
    assert r.exit_code == 0, r.output
    first = next(read_conllu(out))
    written = [float(re.search(r"HeadProb=([0-9.]+)", m).group(1)) for m in first.misc]
    arcs = [g for g in ET.parse(tmp_path / "first.svg").getroot().iter("{http://www.w3.org/2000/svg}g")
            if "planar-arc" in g.get("class", "")]
    drawn = {int(g.get("data-dep")): (float(g.get("data-prob")), float(g.get("opacity"))) for g in arcs}
    assert [drawn[d][0] for d in range(1, len(first) + 1)] == pytest.approx(written, abs=1e-3)
    shades = sorted(drawn.values())
    assert all(a[1] <= b[1] for a, b in zip(shades, shades[1:]))  # the less probable, the paler


def test_compare_reports_the_kbest_oracle_and_render_shades_a_parse(model, tmp_path):
    """``compare --kbest`` reports the oracle and the arc probabilities'
    calibration and ranking beside the LAS (test_pipeline checks the ranking
    of a better trained parser); ``render --confidence`` shades a parse."""
    dev = sample(fixture_path("dev"), tmp_path / "dev.conllu", 120)
    r = CliRunner().invoke(app, ["lab", "compare", str(dev), f"ours={model}", "-r", "1", "--kbest", "4",
                                 "--anchor", "ours"])
    assert r.exit_code == 0, r.output
    row = re.search(r"^\| ours \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+)% \|$",
                    r.output, re.M)
    assert row, r.output
    las, oracle, ece, brier, auroc, found = map(float, row.groups())
    assert oracle > las
    # the arc probabilities' figures are evaluate's of the same parses written with --kbest 4 --confidence
    r = CliRunner().invoke(app, ["parse", str(model), str(dev), str(tmp_path / "k4.conllu"), "--kbest", "4",
                                 "--confidence"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["evaluate", str(dev), str(tmp_path / "k4.conllu"), "--json"])
    assert r.exit_code == 0, r.output
    cal = json.loads(r.output)["calibration"]
    # (the file's HeadProb keeps the decimals Token._.head_prob keeps: the same figures, up to compare's rounding)
    assert (ece, brier, auroc) == pytest.approx((cal["ECE"], cal["Brier"], cal["AUROC"]), abs=6e-4)
    assert found == pytest.approx(100 * cal["errors_in_least_20pc"], abs=0.051)
    r = CliRunner().invoke(app, ["render", str(model), str(tmp_path / "t.svg"), "--text", "jah qaþ du im",
                                 "--confidence"])
    assert r.exit_code == 0, r.output
    assert len(re.findall(r'data-prob="[0-9.]+"', (tmp_path / "t.svg").read_text(encoding="utf-8"))) == 4
