"""``compare``: trained pipelines side by side on one treebank, in markdown tables."""
from __future__ import annotations

from collections import Counter

import json
import statistics
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import typer

from spacy_planar.cli._app import beam_options, fail, flag, load_pipeline, planar_parsers, setting_options
from spacy_planar_lab._app import lab_app
from spacy_planar.cli.train import TRAIN_SECONDS
from spacy_planar.corpus.files import given_sentences, input_docs
from spacy_planar.defaults import BATCH_SIZE
from spacy_planar.errors import Errors, UserError
from spacy_planar.eval.metrics import LENGTH_BINS, Scores, paired_bootstrap, shown
from spacy_planar.io.conllu import atomic_output, read_conllu
from spacy_planar.io.doc_trees import ud_tree
from spacy_planar.defaults import KBEST_BEAM
from spacy_planar.parser.shared.repairs import REPAIRS, summary
from spacy_planar.parser.transition.pipe import PlanarParser
from spacy_planar.trees.transforms import apply_transforms, check_transforms


def score_pipeline(model_dir: Path, gold: Path, batch_size: int = BATCH_SIZE, repeats: int = 1,
                   beam: Optional[Dict] = None, touched: Sequence[str] = ()) -> Dict:
    """Parse ``gold``'s words with a pipeline (its planar_parser with the
    ``beam`` settings of ``beam_options``, if given); metrics and parse speed;
    ``touched``: tree transforms whose touched gold words are scored apart."""
    nlp = load_pipeline(model_dir, beam)
    parsers = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, PlanarParser)]
    sents = list(read_conllu(gold))
    best = float("inf")
    parsed = []
    for _ in range(repeats):
        docs = input_docs(nlp, sents)
        start = time.perf_counter()
        parsed = list(given_sentences(nlp, docs, batch_size))
        best = min(best, time.perf_counter() - start)
    scores = Scores()
    for s, doc in zip(sents, parsed):
        groups = {}
        for name in touched:
            h, l = apply_transforms([name], s.heads, s.deprels)
            groups[name] = [(a, b) != (c, d) for a, b, c, d in zip(h, l, s.heads, s.deprels)]
        scores.add((s.heads, s.deprels), ud_tree(doc), groups)
    res = scores.as_dict()
    res["groups"] = scores.groups()
    res["label_las"] = scores.label_las()
    res["by_length"] = scores.by_length()
    res["long_arcs"] = scores.long_arcs()
    res["per_sentence"] = scores.per_sentence
    if beam and beam.get("n_best", 1) > 1:
        res["kbest"] = kbest_scores(sents, parsed, beam["n_best"])
    res["words_per_s"] = sum(len(s) for s in sents) / best
    # what the component had to repair to keep its output valid, by code (parser/shared/repairs.py), per parse
    res["repaired"] = {code: n / max(repeats, 1) for code, n in sum((p.repaired for p in parsers), Counter()).items()}
    timing = Path(model_dir).parent / TRAIN_SECONDS
    res["train_seconds"] = json.loads(timing.read_text())["seconds"] if timing.exists() else None
    return res


def kbest_scores(sents: Sequence, docs: Sequence, k: int) -> Dict:
    """What ``compare --kbest`` adds for one run: the k-best oracle LAS
    (whole labels, as the LAS column; the best of each sentence's first
    ``k`` parses) and the arc probabilities' calibration and ranking
    (``Token._.head_prob`` against whether head and label are right)."""
    from spacy_planar.eval.metrics import calibration, oracle_choice, ranking

    right, words, probs, correct = 0, 0, [], []
    for s, doc in zip(sents, docs):
        heads, labels = ud_tree(doc)
        units = doc._.parses or []
        parses = [(p["prob"], p["heads"], p["labels"]) for p in units[0]] if len(units) == 1 else []
        right += oracle_choice(parses or [(1.0, heads, labels)], s.heads, s.deprels, k)
        words += len(s)
        for token, gh, gl, h, l in zip(doc, s.heads, s.deprels, heads, labels):
            if token._.head_prob is not None:
                probs.append(token._.head_prob)
                correct.append(gh == h and gl == l)
    return {"oracle_LAS": 100 * right / max(words, 1), "k": k, "ECE": calibration(probs, correct).ece,
            **ranking(probs, correct)}


def kbest_table(runs: Dict[str, List[Dict]]) -> str:
    """The k-best oracle LAS and the arc probabilities' ECE, Brier score,
    AUROC and the share of the errors among the least probable fifth of the
    arcs, one row per NAME that kept k-best parses (the mean of its runs)."""
    kept = {name: rs for name, rs in runs.items() if "kbest" in rs[0]}
    k = next(iter(kept.values()))[0]["kbest"]["k"]
    lines = [f"The {k}-best oracle LAS (the best of each sentence's {k} most probable parses) and the arc "
             "probabilities (`Token._.head_prob`; calibrated by `spacy-planar calibrate` where the pipeline was): "
             "ECE (10 bins), Brier score, AUROC, the share of the wrong arcs among the 20% least probable arcs:", "",
             f"| system | LAS | {k}-best oracle LAS | ECE | Brier | AUROC | errors in the least probable 20% |",
             "|---|---|---|---|---|---|---|"]
    mean = lambda rs, key: statistics.mean(x["kbest"][key] for x in rs)  # noqa: E731
    for name, rs in kept.items():
        lines.append(f"| {name} | {statistics.mean(x['LAS'] for x in rs):.2f} | {mean(rs, 'oracle_LAS'):.2f} | "
                     f"{mean(rs, 'ECE'):.3f} | {mean(rs, 'Brier'):.3f} | {mean(rs, 'AUROC'):.3f} | "
                     f"{100 * mean(rs, 'errors_in_least_20pc'):.1f}% |")
    return "\n".join(lines)


def length_table(runs: Dict[str, List[Dict]]) -> str:
    """UAS / LAS by gold arc length, one row per NAME (the mean of its runs)."""
    first = next(iter(runs.values()))[0]["by_length"]
    lines = ["UAS / LAS over the gold arcs of each length |head - dependent|:", "",
             "| system | " + " | ".join(LENGTH_BINS) + " |", "|" + "---|" * (len(LENGTH_BINS) + 1),
             "| gold arcs | " + " | ".join(f"{first[b]['arcs']:,}" for b in LENGTH_BINS) + " |"]
    for name, rs in runs.items():
        cells = [" / ".join(f"{statistics.mean(x['by_length'][b][k] for x in rs):.1f}" for k in ("UAS", "LAS"))
                 for b in LENGTH_BINS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def group_table(runs: Dict[str, List[Dict]], labels: Sequence[str], touched: Sequence[str]) -> str:
    """LAS over the gold arcs of each label, and UAS / LAS over the words
    each transform touches; one row per NAME (the mean of its runs)."""
    first = next(iter(runs.values()))[0]
    cols = [f"{l} ({first['label_las'].get(l, {}).get('arcs', 0):,})" for l in labels]
    cols += [f"touched by {t} ({first['groups'][t]['words']:,}) UAS / LAS" for t in touched]
    lines = ["LAS over the gold arcs of each label; UAS / LAS over the words a transform touches:", "",
             "| system | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for name, rs in runs.items():
        cells = [f"{statistics.mean(x['label_las'][l]['LAS'] for x in rs):.2f}" if l in first["label_las"] else "-"
                 for l in labels]
        cells += [" / ".join(f"{statistics.mean(x['groups'][t][k] for x in rs):.2f}" for k in ("UAS", "LAS"))
                  for t in touched]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def long_arc_table(runs: Dict[str, List[Dict]], top: int = 8) -> str:
    """UAS over the long gold arcs (7+) of the ``top`` most frequent kinds
    (gold label, side of the head) of the first NAME's first run, one row per
    NAME (the mean of its runs)."""
    kinds = list(next(iter(runs.values()))[0]["long_arcs"].items())[:top]
    lines = [f"UAS over the gold arcs of {LENGTH_BINS[-1]} words, by gold label and side of the head "
             "(the most frequent kinds):", "",
             "| system | " + " | ".join(k for k, _ in kinds) + " |", "|" + "---|" * (len(kinds) + 1),
             "| gold arcs | " + " | ".join(f"{v['arcs']:,}" for _, v in kinds) + " |"]
    for name, rs in runs.items():
        cells = [f"{statistics.mean(x['long_arcs'][k]['UAS'] for x in rs):.1f}" for k,
                 _ in kinds]  # one gold: same kinds
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def significance(runs: Dict[str, List[Dict]], anchor: str) -> Dict[str, Dict[str, Tuple[float, float]]]:
    """For each NAME but the anchor: the paired bootstrap test
    (``metrics.paired_bootstrap``) of its UAS and LAS against the anchor's,
    each sentence's right words averaged over the NAME's runs."""
    import numpy as np

    def mean_right(rs: List[Dict]):  # per sentence: words, heads right, arcs right (means over the runs)
        return np.mean([r["per_sentence"] for r in rs], axis=0)

    base = mean_right(runs[anchor])
    out = {}
    for name, rs in runs.items():
        if name != anchor:
            right = mean_right(rs)
            out[name] = {k: paired_bootstrap(right[:, col], base[:, col], base[:, 0])
                         for col, k in ((1, "UAS"), (2, "LAS"))}
    return out


def kbest_options(models: Sequence[str], beams_of: Dict[str, Dict], k: int) -> Dict[str, Dict]:
    """``beams_of`` with ``n_best`` K for each NAME whose pipelines have a
    planar_parser (a beam of 8, or K if wider, where none is given; E109
    where the given one is narrower than K)."""
    out = {name: dict(settings) for name, settings in beams_of.items()}
    for item in models:
        name, _, path = item.partition("=")
        if not (Path(path) / "config.cfg").exists() or not planar_parsers(Path(path)):
            continue
        settings = out.setdefault(name, {})
        settings.setdefault("beam_width", max(KBEST_BEAM, k))
        if settings["beam_width"] < k:
            raise UserError(Errors.E109.format(kbest=k, beam=settings["beam_width"]))
        settings["n_best"] = k
    return out


def main_table(runs: Dict[str, List[Dict]], gold: Path, anchor: str) -> List[str]:
    """``compare``'s first table, a row per NAME (the mean of its runs, UAS
    and LAS with their standard deviation), with the paired test against
    ``anchor`` where it is among them; its lines."""
    several = any(len(rs) > 1 for rs in runs.values())
    tests = significance(runs, anchor) if anchor in runs else {}
    header = ("| system | UAS | LAS | EM_U | EM_L | NP P (U) | NP R (U) | NP F (U) | NP F (L) | train s "
              "| parse words/s |"
              + (f" LAS - {anchor} (p) |" if tests else ""))
    lines = [f"Scored on `{gold}` (all words, punctuation included; LAS over whole labels, subtypes such as "
             "obl:arg included, where `spacy-planar evaluate`'s CoNLL 2018 LAS reads the universal part only)"
             + ("; rows of several runs: mean ± standard deviation over the runs" if several else "")
             + (f"; p: paired bootstrap over sentences against {anchor}" if tests else ""),
             "", header, "|" + "---|" * (12 if tests else 11)]
    for name, rs in runs.items():
        r = {k: statistics.mean(x[k] for x in rs) for k, v in rs[0].items()
             if k != "train_seconds" and not isinstance(v, (dict, list))}  # the breakdowns have tables of their own
        sd = {k: statistics.stdev(x[k] for x in rs) if len(rs) > 1 else None for k in ("UAS", "LAS")}
        times = [x["train_seconds"] for x in rs if x["train_seconds"] is not None]
        train_s = f"{statistics.mean(times):.0f}" if times else "-"
        uas, las = ((f"{r[k]:.2f}" + (f" ± {sd[k]:.2f}" if sd[k] is not None else "")) for k in ("UAS", "LAS"))
        label = name + (f" ({len(rs)} runs)" if len(rs) > 1 else "")
        lines.append(f"| {label} | {uas} | {las} | {r['EM_U']:.2f} | {r['EM_L']:.2f} | "
                     + " | ".join(shown(r, k, ".1f") for k in ("NP_P_U", "NP_R_U", "NP_F_U", "NP_F_L")) + " | "
                     f"{train_s} | {r['words_per_s']:,.0f} |"
                     + ((" - |" if name == anchor else f" {tests[name]['LAS'][0]:+.2f} ({tests[name]['LAS'][1]:.3f}) |")
                        if tests else ""))
    return lines


@lab_app.command()
def compare(
    gold: Path = typer.Argument(..., help="Gold CoNLL-U (the test split)"),
    models: List[str] = typer.Argument(..., help="NAME=PIPELINE_DIR pairs"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the markdown table here"),
    repeats: int = typer.Option(3, "--repeats", "-r", help="Parse repeats (speed: best)"),
    by_length: bool = flag(False, "--by-length", help="Also tables of UAS / LAS by gold arc length, "
                                   "and of UAS over the long arcs by gold label"),
    anchor: str = typer.Option("spacy_parser", "--anchor", "-a",
                               help="The NAME the others are tested against (paired bootstrap), if given"),
    beams: List[str] = typer.Option([], "--beam", help="NAME=WIDTH[+merge]: that NAME's pipelines parse with "
                                    "a beam of WIDTH (their planar_parser's beam_width; +merge: beam_merge); repeat "
                                    "for several NAMEs"),
    sets: List[str] = typer.Option([], "--set", help="NAME:KEY=VALUE: a planar_parser setting for that NAME's "
                                   "pipelines (e.g. two_planar:single_root=false); repeat for several"),
    labels: str = typer.Option("", "--labels", help="Comma-separated gold labels: a table of LAS over each"),
    touched: List[str] = typer.Option([], "--touched", help="A tree transform: LAS over the gold words whose arcs "
                                      "it changes (repeat for several)"),
    kbest: int = typer.Option(1, "--kbest", "-k", help="Keep each sentence's K best parses (a beam of at least K, "
                              f"{KBEST_BEAM} where --beam gives none): a table of the K-best oracle LAS and of the arc "
                              "probabilities' calibration"),
) -> None:
    """Compare trained pipelines on one treebank: a markdown table.

    A markdown table of trained pipelines on one treebank: UAS, LAS, exact
    match, non-projective P/R/F, training time, parse speed. A NAME given
    several times (runs with different seeds) gets one row: the mean of its
    runs, with the standard deviation of UAS and LAS. Where the ``--anchor``
    NAME is among them (default spacy_parser), each other NAME's difference
    in LAS from it comes with the p-value of a paired bootstrap test over
    sentences (10,000 resamples; each sentence's right words averaged over a
    NAME's runs). ``--by-length``: a second
    table, UAS / LAS over the gold arcs of each length (the roots apart), and
    a third, UAS over the long arcs (7+) of the most frequent kinds (gold label
    and side of the head). ``--labels conj,cc``: LAS over the gold arcs of
    each label; ``--touched T``: UAS / LAS over the gold words whose arcs the
    tree transform T changes (Nilsson 2007, Experiment II). ``--kbest K``:
    the pipelines with a planar_parser keep their K best parses, and a table
    gives the K-best oracle LAS and how calibrated and how well ranked the
    arc probabilities are."""
    runs: Dict[str, List[Dict]] = {}
    check_transforms(touched)
    beams_of = pipeline_settings(models, beams, sets, kbest)
    for item in models:
        name, _, path = item.partition("=")
        if not path:
            fail(Errors.E081.format(item=item))
        runs.setdefault(name, []).append(score_pipeline(Path(path), gold, repeats=repeats,
                                                        beam=beams_of.get(name), touched=touched))
    lines = main_table(runs, gold, anchor) + repair_lines(runs)
    if by_length:
        lines += ["", length_table(runs), "", long_arc_table(runs)]
    if labels or touched:
        lines += ["", group_table(runs, [x for x in labels.split(",") if x], touched)]
    if any("kbest" in rs[0] for rs in runs.values()):
        lines += ["", kbest_table(runs)]
    table = "\n".join(lines) + "\n"
    if output is not None:
        with atomic_output(output) as f:
            f.write(table)
    print(table)


def pipeline_settings(models: List[str], beams: List[str], sets: List[str], kbest: int) -> Dict[str, Dict]:
    """The planar_parser settings of each NAME: its ``--beam``, its ``--set`` and, with ``--kbest``,
    a beam wide enough for K parses."""
    beams_of = beam_options(beams)
    for name, settings in setting_options(sets).items():
        beams_of[name] = {**beams_of.get(name, {}), **settings}
    return kbest_options(models, beams_of, kbest) if kbest > 1 else beams_of


def repair_lines(runs: Dict[str, List[Dict]]) -> List[str]:
    """A line for each NAME whose parser repaired something: the mean per parse, by code."""
    lines = []
    for name, rs in runs.items():
        repaired = {code: statistics.mean(x["repaired"].get(code, 0) for x in rs) for code in REPAIRS}
        if any(repaired.values()):
            lines += ["", f"What {name}'s parser repaired (mean per parse, by code): " + "; ".join(summary(repaired))]
    return lines
