import json
import re

import pytest
import reference
from conftest import sample
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import labelled_trees
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.eval.metrics import LENGTH_BINS, Scores, evaluate

runner = CliRunner()


def reference_scores(pairs):
    """The metrics computed word by word, straight from their definitions."""
    words = right_u = right_l = em_u = em_l = 0
    g_np = s_np = g_ok_u = g_ok_l = s_ok_u = s_ok_l = 0
    for (gh, gl), (sh, sl) in pairs:
        g_nonproj = reference.nonprojective(gh)
        s_nonproj = reference.nonprojective(sh)
        all_u = all_l = True
        for i in range(len(gh)):
            u = gh[i] == sh[i]
            lab = u and gl[i] == sl[i]
            words += 1
            right_u += u
            right_l += lab
            all_u &= u
            all_l &= lab
            if g_nonproj[i]:
                g_np += 1
                g_ok_u += u
                g_ok_l += lab
            if s_nonproj[i]:
                s_np += 1
                s_ok_u += u
                s_ok_l += lab
        em_u += all_u
        em_l += all_l

    def pct(a, b):
        return 100.0 * a / b if b else 0.0

    def f(p, r):
        return 2 * p * r / (p + r) if p + r else 0.0

    n = len(pairs)
    pu, ru, pl, rl = pct(s_ok_u, s_np), pct(g_ok_u, g_np), pct(s_ok_l, s_np), pct(g_ok_l, g_np)
    return {"UAS": pct(right_u, words), "LAS": pct(right_l, words), "EM_U": pct(em_u, n), "EM_L": pct(em_l, n),
            "NP_P_U": pu, "NP_R_U": ru, "NP_F_U": f(pu, ru), "NP_P_L": pl, "NP_R_L": rl, "NP_F_L": f(pl, rl)}


@st.composite
def tree_pairs(draw, max_words=15):
    gold = draw(labelled_trees(max_words=max_words))
    n = len(gold[0])
    system = draw(labelled_trees(min_words=n, max_words=n))
    if draw(st.booleans()):  # often close to the gold tree, as a parser's output
        system = (list(gold[0]), [g if draw(st.booleans()) else s for g, s in zip(gold[1], system[1])])
    return gold, system


@settings(max_examples=200, deadline=None)
@given(st.lists(tree_pairs(), min_size=1, max_size=6))
def test_metrics_equal_reference(pairs):
    got = evaluate(pairs)
    want = reference_scores(pairs)
    for k, v in want.items():
        assert abs(got[k] - v) < 1e-9, k


def reference_by_length(pairs):
    """UAS / LAS per bin of gold arc length, word by word."""
    counts = {b: [0, 0, 0] for b in LENGTH_BINS}
    for (gh, gl), (sh, sl) in pairs:
        for i, h in enumerate(gh, start=1):
            d = abs(h - i)
            b = "root" if h == 0 else "1" if d == 1 else "2" if d == 2 else "3-6" if d <= 6 else "7+"
            c = counts[b]
            c[0] += 1
            c[1] += h == sh[i - 1]
            c[2] += h == sh[i - 1] and gl[i - 1] == sl[i - 1]
    return {b: {"arcs": n, "UAS": 100.0 * u / n if n else 0.0, "LAS": 100.0 * l / n if n else 0.0}
            for b, (n, u, l) in counts.items()}


@settings(max_examples=100, deadline=None)
@given(st.lists(tree_pairs(max_words=40), min_size=1, max_size=4))  # long enough for every bin
def test_by_length_equals_reference(pairs):
    scores = Scores()
    for gold, system in pairs:
        scores.add(gold, system)
    assert scores.by_length() == reference_by_length(pairs)
    # the bins tile the words: their arcs add up to all words, their right heads to UAS
    got = scores.by_length()
    assert sum(v["arcs"] for v in got.values()) == scores.words
    assert abs(sum(v["arcs"] * v["UAS"] for v in got.values()) / scores.words - scores.as_dict()["UAS"]) < 1e-9


def reference_long_arcs(pairs):
    """UAS / LAS over the gold arcs of 7+ words per (label, side of the head), word by word."""
    counts = {}
    for (gh, gl), (sh, sl) in pairs:
        for i, h in enumerate(gh, start=1):
            if h == 0 or abs(h - i) < 7:
                continue
            c = counts.setdefault(f"{gl[i - 1]}, head {'left' if h < i else 'right'}", [0, 0, 0])
            c[0] += 1
            c[1] += h == sh[i - 1]
            c[2] += h == sh[i - 1] and gl[i - 1] == sl[i - 1]
    return {k: {"arcs": n, "UAS": 100.0 * u / n, "LAS": 100.0 * l / n} for k, (n, u, l) in counts.items()}


@settings(max_examples=100, deadline=None)
@given(st.lists(tree_pairs(max_words=40), min_size=1, max_size=4))
def test_long_arcs_equal_reference(pairs):
    """``long_arcs`` breaks the 7+ bin down by gold label and side of the
    head: word by word as the reference, most frequent first, and its kinds
    add up to the bin."""
    scores = Scores()
    for gold, system in pairs:
        scores.add(gold, system)
    got = scores.long_arcs()
    assert got == reference_long_arcs(pairs)
    counts = [v["arcs"] for v in got.values()]
    assert counts == sorted(counts, reverse=True)
    long = scores.by_length()["7+"]
    assert sum(counts) == long["arcs"]
    if long["arcs"]:
        assert abs(sum(v["arcs"] * v["LAS"] for v in got.values()) / long["arcs"] - long["LAS"]) < 1e-9
    assert list(scores.long_arcs(top=2)) == list(got)[:2]


def test_evaluate_cli(tmp_path, train_conllu):
    gold = sample(train_conllu, tmp_path / "gold.conllu", 240)  # long arcs and non-projective ones among them
    res = runner.invoke(app, ["evaluate", str(gold), str(gold), "--json"])
    assert res.exit_code == 0, res.output
    scores = json.loads(res.output)
    official = scores["official"]
    assert official["LAS"] == official["UAS"] == official["CLAS"] == scores["LAS_whole_labels"] == 100.0
    # the gold's own tag and lemma columns are copies of the gold: named, not scored
    assert scores["columns"] == {"LEMMA": "copied", "UPOS": "copied", "XPOS": "copied", "FEATS": "copied"}
    assert set(official) == {"UAS", "LAS", "CLAS"}
    assert scores["NP_R_L"] == scores["NP_P_U"] == 100.0
    assert {v["LAS"] for v in scores["by_length"].values()} == {100.0}
    assert sum(v["arcs"] for v in scores["by_length"].values()) == scores["words"]
    assert sum(v["arcs"] for v in scores["long_arcs"].values()) == scores["by_length"]["7+"]["arcs"] > 0
    assert {v["UAS"] for v in scores["long_arcs"].values()} == {100.0}
    # a system file with different words is refused, saying where
    lines = gold.read_text(encoding="utf-8").split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("3\t"))
    cols = lines[k].split("\t")
    cols[1] = "XXX"
    lines[k] = "\t".join(cols)
    other = tmp_path / "sys.conllu"
    other.write_text("\n".join(lines), encoding="utf-8")
    res = runner.invoke(app, ["evaluate", str(gold), str(other)])
    assert res.exit_code == 1 and "E041" in res.output and "word 3" in res.output and "cannot align" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_evaluate_aligns_other_words_as_the_official_scorer(tmp_path, train_conllu):
    """Output over other words (raw text parsed: two words as one token) is
    scored by the CoNLL 2018 scorer, which aligns them; blank columns are
    named and not scored."""
    blocks = train_conllu.read_text(encoding="utf-8").split("\n\n")[:20]
    gold = tmp_path / "gold.conllu"
    gold.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    first = [line.split("\t") for line in blocks[0].split("\n") if line and not line.startswith("#")]
    heads = [int(c[6]) for c in first]
    # words a and a + 1 written as one (neither the other's head, neither the root): the rest renumbered
    a = next(i for i in range(1, len(first)) if heads[i - 1] not in (0, i + 1) and heads[i] not in (0, i))
    fix = lambda n: n - 1 if n > a else n  # noqa: E731
    merged = []
    for cols in first:
        i, head = int(cols[0]), int(cols[6])
        if i == a + 1:
            continue
        form = cols[1] + first[a][1] if i == a else cols[1]
        merged.append([str(fix(i)), form, "_", "_", "_", "_", str(fix(head)), cols[7], "_", "_"])
    system = tmp_path / "sys.conllu"
    rest = ["\n".join("\t".join(c[:2] + ["_"] * 4 + c[6:8] + ["_", "_"]) for c in
                      (line.split("\t") for line in b.split("\n") if line and not line.startswith("#")))
            for b in blocks[1:]]
    system.write_text("\n\n".join(["\n".join("\t".join(c) for c in merged)] + rest) + "\n\n", encoding="utf-8")
    res = runner.invoke(app, ["evaluate", str(gold), str(system), "--json"])
    assert res.exit_code == 0, res.output
    scores = json.loads(res.output)
    # and how the tokens and words match the gold's (the sentences do)
    assert set(scores["official"]) == {"Tokens", "Words", "UAS", "LAS", "CLAS"} and 90 < scores["official"]["UAS"] < 100
    assert 95 < scores["official"]["Words"] < 100 and 95 < scores["official"]["Tokens"] < 100
    assert scores["columns"] == {"LEMMA": "blank", "UPOS": "blank", "XPOS": "blank", "FEATS": "blank"}
    res = runner.invoke(app, ["evaluate", str(gold), str(system)])
    assert res.exit_code == 0 and "CoNLL 2018 scorer's figures alone" in res.output and "not scored" in res.output


def test_evaluate_a_file_that_is_not_utf8_is_one_line(tmp_path, train_conllu):
    bad = tmp_path / "latin1.conllu"
    bad.write_bytes("# text = caf\xe9\n1\tcaf\xe9\t_\t_\t_\t_\t0\troot\t_\t_\n\n".encode("latin-1"))
    for args in ([str(train_conllu), str(bad)], [str(bad), str(train_conllu)]):
        res = runner.invoke(app, ["evaluate", *args])
        assert res.exit_code == 1 and re.search(r"latin1.conllu:1: \[E0(01|19)\]", res.output), res.output
        assert len(res.output.strip().splitlines()) == 1


def test_evaluate_cli_scores_changes(tmp_path, train_conllu):
    # move every non-root word of the first sentences to the root: UAS drops
    lines = train_conllu.read_text(encoding="utf-8").split("\n")[:200]
    last_blank = max(i for i, line in enumerate(lines) if not line)
    lines = lines[:last_blank + 1]
    gold = tmp_path / "gold.conllu"
    gold.write_text("\n".join(lines), encoding="utf-8")
    flat = []
    for line in lines:
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            cols[6] = "0"
        flat.append("\t".join(cols))
    system = tmp_path / "sys.conllu"
    system.write_text("\n".join(flat), encoding="utf-8")
    res = runner.invoke(app, ["evaluate", str(gold), str(system), "--json"])
    scores = json.loads(res.output)
    # the official scorer refuses sentences with several roots by default: scored with its own
    # multiple_roots_okay, each word's head as it is (the same UAS as ours), and said so
    assert scores["several_roots"]
    assert 0 < scores["official"]["LAS"] < 50 and 0 < scores["LAS_whole_labels"] < 50 and scores["NP_P_U"] == 0.0
    words = [line.split("\t") for line in lines if line.split("\t")[0].isdigit()]
    assert abs(scores["official"]["UAS"] - 100 * sum(w[6] == "0" for w in words) / len(words)) < 1e-9
    # no non-projective arc in the system: its precision is 0 / 0, shown as "-" (recall 0 of the gold's)
    assert scores["np_system_arcs"] == 0 < scores["np_gold_arcs"]
    res = runner.invoke(app, ["evaluate", str(gold), str(system)])
    rows = dict(re.findall(r"^(NP_\w+)\s+(\S+)\s*$", res.output, re.M))
    assert rows["NP_P_U"] == rows["NP_F_L"] == "-" and rows["NP_R_U"] == "0.00", res.output


def test_paired_bootstrap():
    """No difference: p = 1. A system right on every word against one right
    on half of them: the observed difference, and p far below 0.01. A
    difference of one word in 2,000 is within chance. The sign follows A - B."""
    import numpy as np

    from spacy_planar.eval.metrics import paired_bootstrap

    words = np.full(200, 10)
    assert paired_bootstrap(words * 0.5, words * 0.5, words) == (0.0, 1.0)
    delta, p = paired_bootstrap(words, words * 0.5, words, samples=2000)
    assert delta == 50.0 and p < 0.01
    delta, p = paired_bootstrap(words * 0.5, words, words, samples=2000)
    assert delta == -50.0 and p < 0.01
    rng = np.random.default_rng(1)
    a = rng.integers(4, 7, size=200).astype(float)
    b = a.copy()
    b[0] += 1
    delta, p = paired_bootstrap(a, b, words, samples=2000)
    assert delta == -0.05 and p > 0.3
    from spacy_planar.errors import UnexpectedError

    with pytest.raises(UnexpectedError, match="E129"):
        paired_bootstrap(words[:3], words[:2], words[:3])
