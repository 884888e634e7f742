"""``evaluate``: a parser's CoNLL-U against the gold one."""
from __future__ import annotations

import json
import re
import tempfile
from itertools import zip_longest
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import typer

from spacy_planar.cli._app import USER_ERRORS, app, fail, flag, msg
from spacy_planar.errors import ConlluError, Errors, UserError
from spacy_planar.eval.metrics import LENGTH_BINS, Scores, shown
from spacy_planar.eval.official import conll18_scores, scored_metrics, system_columns
from spacy_planar.eval.official import validate as official_validate
from spacy_planar.io.conllu import check_input, head_prob, read_conllu, read_utf8
from spacy_planar.io.inputs import readable


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


_ALTERNATIVE = re.compile(r"^# sent_id = .*/([2-9]|[1-9][0-9]+)$", re.M)


def split_kbest(system: Path, folder: Path) -> Tuple[Path, List[List[str]]]:
    """A system file written by ``parse --kbest``: its best parses alone
    (a file in ``folder``), and per sentence the text of its next best
    blocks (``# sent_id = ID/k`` with ``# parse_prob``). Any other file
    comes back as it is, with no alternatives."""
    text = read_utf8(system)
    if "# parse_prob = " not in text or not _ALTERNATIVE.search(text):
        return system, []
    best: List[str] = []
    alternatives: List[List[str]] = []
    for block in text.strip("\n").split("\n\n"):
        if "# parse_prob = " in block and _ALTERNATIVE.search(block) and best:
            alternatives[-1].append(block)
        else:
            best.append(block)
            alternatives.append([])
    out = folder / "best.conllu"
    out.write_text("\n\n".join(best) + "\n\n", encoding="utf-8")
    return out, alternatives


def confidence_report(gold: Path, best: Path, alternatives: List[List[str]], folder: Path,
                      diagram: Optional[Path]) -> Dict:
    """What ``evaluate`` adds for a file of k-best parses and arc
    probabilities: the k-best oracle LAS (for each k up to the most the
    file holds: the best of the first k parses of each sentence, universal
    labels as the official LAS) and the calibration of ``HeadProb`` (ECE,
    10 bins; ``diagram``: the reliability diagram as SVG) and how it ranks
    the arcs (``kbest.ranking``)."""
    from spacy_planar.eval.render import reliability_svg
    from spacy_planar.eval.metrics import calibration, oracle_choice, ranking

    out: Dict = {}
    gold_sents = list(read_conllu(gold))
    system_sents = list(read_conllu(best))
    universal = lambda labels: [label.split(":")[0] for label in labels]  # noqa: E731
    if alternatives:
        alt_file = folder / "alternatives.conllu"
        alt_file.write_text("\n\n".join(b for blocks in alternatives for b in blocks) + "\n\n", encoding="utf-8")
        alt_sents = iter(read_conllu(alt_file)) if any(alternatives) else iter(())
        kmax = 1 + max(len(blocks) for blocks in alternatives)
        right = {k: 0 for k in (1, 2, 4, 8, 16, 32, 64) if k <= kmax} | {kmax: 0}
        for g, s, blocks in zip(gold_sents, system_sents, alternatives):
            parses = [(1.0, s.heads, universal(s.deprels))] + [
                (0.0, a.heads, universal(a.deprels)) for a in (next(alt_sents) for _ in blocks)]
            for k in right:
                right[k] += oracle_choice(parses, g.heads, universal(g.deprels), k)
        words = sum(len(g) for g in gold_sents)
        out["kbest_oracle_LAS"] = {k: 100 * v / max(words, 1) for k, v in sorted(right.items())}
    probs, correct = [], []
    for g, s in zip(gold_sents, system_sents):
        for gh, gl, sh, sl, misc in zip(g.heads, g.deprels, s.heads, s.deprels, s.misc):  # labels as written
            found = head_prob(misc)
            if found is not None:
                probs.append(found)
                correct.append(gh == sh and gl == sl)
    if probs:
        cal = calibration(probs, correct)
        out["calibration"] = {"ECE": cal.ece, "arcs": cal.n, "counts": cal.counts.tolist(),
                              "confidence": [None if c != c else c for c in cal.confidence.tolist()],
                              "accuracy": [None if a != a else a for a in cal.accuracy.tolist()],
                              **ranking(probs, correct)}
        if diagram is not None:
            from spacy_planar.io.conllu import atomic_output

            with atomic_output(diagram) as f:
                f.write(reliability_svg(cal, title=best.stem if best.name != "best.conllu" else ""))
    return out


def our_scores(gold: Path, best: Path, alternatives: List[List[str]], folder: Path, diagram: Optional[Path]
               ) -> Tuple[Optional[Scores], Dict, Optional[UserError]]:
    """This project's figures of a system over the gold's words (and the
    k-best and calibration report), or None and the reason where the words
    differ (E040, E041: the official scorer aligns them, ours cannot)."""
    scores = Scores()
    try:
        for g, s in paired_trees(gold, best):
            scores.add(g, s)
        return scores, confidence_report(gold, best, alternatives, folder, diagram), None
    except UserError as e:
        if e.code not in ("E040", "E041"):
            raise
        return None, {}, e


def official_scores(gold: Path, best: Path, system: Path, words_differ: Optional[UserError], quiet: bool
                    ) -> Tuple[Optional[Dict[str, float]], bool]:
    """The CoNLL 2018 scorer's figures and whether the system has sentences
    with several roots (scored with the scorer's ``multiple_roots_okay``);
    None where the scorer refuses the file otherwise (ours follow alone, or,
    where the words differ too, one line and exit 1)."""
    try:
        scores, several = conll18_scores(gold, best)
        if several and not quiet:
            msg.warn(f"{system} has sentences with several roots, which the CoNLL 2018 scorer refuses by "
                     "default: scored with its multiple_roots_okay (each word's head as it is)")
        return scores, several
    except USER_ERRORS as e:
        if words_differ is not None:
            fail(f"{words_differ}; the CoNLL 2018 scorer cannot align the words either: {e}")
        if not quiet:
            msg.warn(f"{e}; only this project's figures follow")
        return None, False


def figures(official: Optional[Dict], ours: Dict, extra: Dict, columns: Dict[str, str]) -> Dict:
    """The rows of ``evaluate``'s table: the official figures of the
    columns the system predicted, ours, the k-best and calibration ones, and
    the columns not scored."""
    res = {f"{k} (CoNLL 2018)": v for k, v in (official or {}).items()}
    res.update(ours)
    for k, v in extra.get("kbest_oracle_LAS", {}).items():
        res[f"{k}-best oracle LAS"] = v
    if "calibration" in extra:
        res["arc probabilities: ECE"] = extra["calibration"]["ECE"]
        for key in ("Brier", "AUROC", "errors_in_least_20pc"):
            res[f"arc probabilities: {key.replace('_', ' ').replace('pc', '%')}"] = extra["calibration"][key]
    left_out = {name: how for name, how in columns.items() if how != "predicted"}
    if left_out:
        res["not scored"] = ", ".join(f"{name} ({how})" for name, how in left_out.items())
    return res


@app.command()
def evaluate(
    gold: Path = typer.Argument(..., help="Gold CoNLL-U"),
    system: Path = typer.Argument(..., help="System CoNLL-U over the same words (parse --kbest / --confidence "
                                  "output too)"),
    as_json: bool = flag(False, "--json"),
    diagram: Optional[Path] = typer.Option(None, "--diagram", help="With HeadProb in the system file: write the "
                                           "reliability diagram of the arc probabilities here (SVG)"),
) -> None:
    """Score a parser's CoNLL-U against the gold one (every word counted).

    First the CoNLL 2018 shared task's scorer (UD's udtools): UAS, LAS,
    CLAS, MLAS, BLEX over universal relations (obl:arg counts as obl), and
    UPOS, XPOS, UFeats, Lemmas. Then what it lacks: LAS over whole labels,
    exact match, non-projective arc P/R/F, UAS / LAS by gold arc length, and
    over the long arcs (7+) by gold label and side of the head (``--json``:
    all of them). A system with sentences of several roots is scored with
    the scorer's multiple_roots_okay, and says so. A file of ``parse
    --kbest`` is scored on its best parses, and its k-best oracle LAS is
    added; one with ``HeadProb`` (``parse --confidence``) gets the
    calibration of those probabilities (expected calibration error, 10
    bins). Only the columns the system predicted are scored: one blank or
    the same as the gold's on every word (copied by parse
    --keep-input-columns) is named and left out (its metrics too: MLAS needs
    UPOS and FEATS, BLEX LEMMA). A system whose words differ from the
    gold's (raw text parsed) gets the official figures alone: the scorer
    aligns the words; ours need the same ones."""
    if diagram is not None and diagram.suffix != ".svg":
        fail(Errors.E121.format(path=diagram))
    with tempfile.TemporaryDirectory() as tmp, readable(gold) as gold_file, readable(system) as system_file:
        best, alternatives = split_kbest(system_file, Path(tmp))
        scores, extra, words_differ = our_scores(gold_file, best, alternatives, Path(tmp), diagram)
        columns = system_columns(gold_file, best)
        official, several_roots = official_scores(gold_file, best, system, words_differ, as_json)
    if words_differ is not None and not as_json:
        msg.warn(f"{words_differ}: the words differ, so the CoNLL 2018 scorer's figures alone (it aligns them)")
    if official is not None:
        official = {k: v for k, v in official.items() if k in scored_metrics(columns, official)}
    ours = scores.as_dict() if scores is not None else {}
    if scores is not None:
        ours = {"LAS whole labels": ours.pop("LAS"), **{k: v for k, v in ours.items() if k != "UAS"}}
    if diagram is not None and "calibration" not in extra and not as_json:
        msg.warn(f"{system} has no HeadProb (parse --confidence writes them): no diagram written")
    if as_json:
        print_json(official, columns, several_roots, scores, ours, extra)
    else:
        print_tables(f"{system} against {gold}", figures(official, ours, extra, columns), scores, ours)


def print_json(official: Optional[Dict], columns, several_roots, scores: Optional[Scores], ours: Dict,
               extra: Dict) -> None:
    """``evaluate --json``: every figure, ours by arc length and over the long arcs too."""
    whole = {"LAS_whole_labels": ours.pop("LAS whole labels")} if scores is not None else {}
    print(json.dumps({"official": official, "columns": columns, "several_roots": several_roots, **whole, **ours,
                      **({"by_length": scores.by_length(),
                          "long_arcs": scores.long_arcs()} if scores is not None else {}),
                      **extra}, indent=2))


def print_tables(title: str, res: Dict, scores: Optional[Scores], ours: Dict) -> None:
    """``evaluate``'s tables: the figures, then (on the same words) UAS and LAS by the gold arc's
    length and over the long arcs' most frequent kinds."""
    msg.table([(k, shown(ours, k) if k in ours and k.startswith("NP_") else (f"{v:.2f}" if isinstance(v, float) else v))
               for k, v in res.items()], title=title)
    if scores is None:
        return
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
    if not 1 <= level <= 5:
        raise UserError(Errors.E044.format(level=level))
    check_input(path)
    if not read_utf8(path).strip():  # not UTF-8: one line naming the line (the validator would crash)
        raise ConlluError(path, 1, Errors.E015)
    passed, report = official_validate(path, level, lang)
    print(report)
    if not passed:
        raise typer.Exit(1)
