"""``evaluate``: a parser's CoNLL-U against the gold one."""
from __future__ import annotations

import json
from itertools import zip_longest
from pathlib import Path
from typing import Iterator, Tuple

import typer

from ..conllu_io import check_input, read_conllu
from ..errors import ConlluError, Errors, UserError
from ..metrics import LENGTH_BINS, Scores
from ..official import conll18_scores, validate as official_validate
from ._app import USER_ERRORS, app, fail, msg


def paired_trees(gold: Path, system: Path) -> Iterator[Tuple[Tuple, Tuple]]:
    """(gold tree, system tree) per sentence; refuses files that differ."""
    n = 0
    g_sents = read_conllu(gold)
    s_sents = read_conllu(system)
    for g, s in zip_longest(g_sents, s_sents):
        n += 1
        if g is None or s is None:
            n_g = n - 1 + (g is not None) + sum(1 for _ in g_sents)
            n_s = n - 1 + (s is not None) + sum(1 for _ in s_sents)
            raise UserError(Errors.E040.format(gold=gold, n_gold=n_g, system=system, n_system=n_s))
        if g.forms != s.forms:
            i = next((i for i, (a, b) in enumerate(zip(g.forms, s.forms)) if a != b), min(len(g), len(s)))
            reason = (f"{len(g)} words in gold, {len(s)} in system" if len(g) != len(s)
                      else f"word {i + 1} is '{g.forms[i]}' in gold, '{s.forms[i]}' in system")
            raise UserError(Errors.E041.format(sent=n, gold_line=g.line, system_line=s.line, reason=reason))
        for sent, path in ((g, gold), (s, system)):
            if sent.heads is None:
                raise UserError(Errors.E042.format(path=path, line=sent.line, sent=n))
        yield (g.heads, g.deprels), (s.heads, s.deprels)


@app.command()
def evaluate(
    gold: Path = typer.Argument(..., help="Gold CoNLL-U"),
    system: Path = typer.Argument(..., help="System CoNLL-U over the same words"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Score a parser's CoNLL-U against the gold one (every word counted).

    First the CoNLL 2018 shared task's scorer (UD's udtools): UAS, LAS,
    CLAS, MLAS, BLEX over universal relations (obl:arg counts as obl), and
    UPOS, XPOS, UFeats, Lemmas (right only where the system file predicts
    them). Then what it lacks: LAS over whole labels, exact match,
    non-projective arc P/R/F, UAS / LAS by gold arc length, and over the
    long arcs (7+) by gold label and side of the head (``--json``: all of
    them). A file the official scorer refuses (two roots in a sentence)
    gets ours alone, with a warning."""
    scores = Scores()
    try:
        for g, s in paired_trees(gold, system):
            scores.add(g, s)
    except USER_ERRORS as e:
        fail(str(e))
    try:
        official = conll18_scores(gold, system)
    except USER_ERRORS as e:  # e.g. two roots in a sentence: no official figures, ours still
        official = None
        if not as_json:
            msg.warn(f"{e}; only this project's figures follow")
    ours = scores.as_dict()
    res = {**{f"{k} (CoNLL 2018)": v for k, v in (official or {}).items()}, "LAS whole labels": ours.pop("LAS")}
    ours.pop("UAS")
    res.update(ours)
    if as_json:
        print(json.dumps({"official": official, "LAS_whole_labels": res["LAS whole labels"], **ours,
                          "by_length": scores.by_length(), "long_arcs": scores.long_arcs()}, indent=2))
        return
    msg.table([(k, f"{v:.2f}" if isinstance(v, float) else v) for k, v in res.items()],
              title=f"{system} against {gold}")
    msg.table([(length, v["arcs"], f"{v['UAS']:.2f}", f"{v['LAS']:.2f}") for length, v in scores.by_length().items()],
              header=("arc length", "gold arcs", "UAS", "LAS"), title="By the length of the gold arc")
    msg.table([(kind, v["arcs"], f"{v['UAS']:.2f}", f"{v['LAS']:.2f}") for kind, v in scores.long_arcs(top=10).items()],
              header=("gold label, side of the head", "gold arcs", "UAS", "LAS"),
              title=f"The gold arcs of {LENGTH_BINS[-1]} words, the most frequent kinds")


@app.command()
def validate(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    level: int = typer.Option(2, "--level", "-l", help="1-5: format, UD's universal rules, content rules, "
                              "a language's features, its relations"),
    lang: str = typer.Option("ud", "--lang", help="Language code for levels 4-5 (ud: none)"),
) -> None:
    """Check a CoNLL-U file with the UD validator (UD's udtools), as UD's
    releases do: exit 0 if it passes at --level, 1 with its report if not."""
    try:
        if not 1 <= level <= 5:
            raise UserError(Errors.E044.format(level=level))
        check_input(path)
        if not path.read_bytes().strip():
            raise ConlluError(path, 1, Errors.E015)
    except USER_ERRORS as e:
        fail(str(e))
    passed, report = official_validate(path, level, lang)
    print(report)
    if not passed:
        raise typer.Exit(1)
