"""The ``spacy-planar`` command line (also ``python -m spacy_planar``)."""
from __future__ import annotations

import json
from itertools import zip_longest
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import typer
from wasabi import Printer

from .conllu_io import SkipReport, conllu_to_docbin, docbin_to_conllu, read_conllu, roundtrip_diffs
from .errors import ConlluError, Errors
from .metrics import LENGTH_BINS, Scores
from .pseudoproj import ENCODINGS, transform_check
from .trees import analyse

msg = Printer()
app = typer.Typer(name="spacy-planar", add_completion=False, no_args_is_help=True,
                  help="Non-projective transition-based dependency parsing for spaCy.")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks: throughput in words per second.")
app.add_typer(bench_app, name="bench")


def fail(text: str) -> None:
    """Print an error (unwrapped, so "file:line: reason" stays whole) and exit 1."""
    typer.secho(f"\u2718 {text}", fg="red", err=True)
    raise typer.Exit(1)


def trees_of(path: Path, report: Optional[SkipReport] = None) -> Iterator[Tuple[List[int], List[str]]]:
    """(heads, labels) of the annotated sentences of a CoNLL-U file."""
    for sent in read_conllu(path, skip_invalid=report is not None, report=report):
        if sent.heads is not None:
            yield sent.heads, sent.deprels


@app.command()
def convert(
    input_path: Path = typer.Argument(..., help="A .conllu or .spacy file"),
    output_path: Path = typer.Argument(..., help="The other kind: .spacy or .conllu"),
    lang: str = typer.Option("xx", "--lang", "-l", help="Language of the vocab"),
    n_sents: int = typer.Option(1, "--n-sents", "-n", help="Sentences per Doc (.conllu -> .spacy)"),
    skip_invalid: bool = typer.Option(False, "--skip-invalid", help="Leave out malformed sentences, and say which"),
) -> None:
    """Convert CoNLL-U to a DocBin or back, by the files' suffixes."""
    kinds = (input_path.suffix, output_path.suffix)
    try:
        if kinds == (".conllu", ".spacy"):
            report = SkipReport()
            docs, words = conllu_to_docbin(input_path, output_path, lang, n_sents, skip_invalid, report)
            if report.skipped:
                msg.warn(f"Skipped {len(report)} invalid sentence(s) of {input_path}:")
                for line, reason in report.skipped:
                    print(f"  {input_path}:{line}: {reason}")
        elif kinds == (".spacy", ".conllu"):
            docs, words = docbin_to_conllu(input_path, output_path, lang)
        else:
            bad = input_path if input_path.suffix not in (".conllu", ".spacy") else output_path
            fail(Errors.E030.format(path=bad))
    except (ConlluError, FileNotFoundError, ValueError) as e:
        fail(str(e))
    msg.good(f"Wrote {output_path}: {docs} docs, {words} words")


@app.command("roundtrip-check")
def roundtrip_check(
    files: List[Path] = typer.Argument(..., help="CoNLL-U files"),
    lang: str = typer.Option("xx", "--lang", "-l"),
) -> None:
    """Check that CoNLL-U -> .spacy -> CoNLL-U keeps every sentence: ID to
    DEPREL, SpaceAfter, range lines and comments (exit 1 on a difference)."""
    bad = False
    for path in files:
        try:
            n, diffs = roundtrip_diffs(path, lang)
        except (ConlluError, FileNotFoundError) as e:
            fail(str(e))
        if diffs:
            bad = True
            msg.fail(f"{path}: {len(diffs)} line(s) differ (first shown)")
            for line, want, got in diffs:
                print(f"  {path}:{line}\n    expected: {want}\n    got:      {got}")
        else:
            msg.good(f"{path}: {n} sentences come back unchanged")
    if bad:
        raise typer.Exit(1)


def stats_of(path: Path) -> Dict:
    """Table 1 of Gómez-Rodríguez & Nivre (2010) for one file (counts)."""
    keys = ("words", "nonprojective_arcs", "nonprojective", "nonplanar", "non_2planar", "non_3planar", "ill_nested")
    total = dict.fromkeys(keys, 0)
    trees = unannotated = 0
    for sent in read_conllu(path):
        if sent.heads is None:
            unannotated += 1
            continue
        trees += 1
        for k, v in analyse(sent.heads).items():
            total[k] += v
    out = {
        "file": str(path), "trees": trees, "words": total["words"],
        "nonprojective_arcs": total["nonprojective_arcs"],
        "nonprojective_trees": total["nonprojective"], "nonplanar_trees": total["nonplanar"],
        "non_2planar_trees": total["non_2planar"], "non_3planar_trees": total["non_3planar"],
        "ill_nested_trees": total["ill_nested"],
    }
    if unannotated:
        out["unannotated_sentences"] = unannotated
    return out


@app.command()
def stats(
    files: List[Path] = typer.Argument(..., help="CoNLL-U files"),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per file, counts"),
) -> None:
    """Projectivity, planarity, m-planarity and ill-nestedness of treebanks."""
    try:
        rows = [stats_of(f) for f in files]
    except (ConlluError, FileNotFoundError) as e:
        fail(str(e))
    if as_json:
        print(json.dumps(rows, indent=2))
        return

    def share(n: int, d: int) -> str:
        return f"{n} ({100.0 * n / d:.2f}%)" if d else "0"

    table = []
    for r in rows:
        t = r["trees"]
        table.append((r["file"], t, r["words"], share(r["nonprojective_arcs"], r["words"]),
                      share(r["nonprojective_trees"], t), share(r["nonplanar_trees"], t),
                      share(r["non_2planar_trees"], t), share(r["non_3planar_trees"], t),
                      share(r["ill_nested_trees"], t)))
    header = ("file", "trees", "words", "non-proj. arcs", "non-proj. trees", "non-planar",
              "non-2-planar", "non-3-planar", "ill-nested")
    msg.table(table, header=header, divider=True, aligns=("l",) + ("r",) * 8, max_col=200)


@app.command("transform-check")
def transform_check_cmd(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    encoding: str = typer.Option("head+path", "--encoding", "-e", help="|".join(ENCODINGS)),
    as_json: bool = typer.Option(False, "--json"),
    failures: int = typer.Option(0, "--failures", help="Show up to N arcs not restored"),
) -> None:
    """Experiment 1 of Nivre & Nilsson (2005): projectivize, deprojectivize,
    and count what comes back."""
    try:
        res = transform_check(trees_of(path), encoding, keep_failures=failures)
    except (ConlluError, FileNotFoundError, ValueError) as e:
        fail(str(e))
    res = {"file": str(path), **res}
    if as_json:
        print(json.dumps(res, indent=2))
        return
    lifts = res["lifts"]
    msg.table([
        ("trees", res["trees"]), ("non-projective trees", res["nonprojective_trees"]),
        ("non-projective arcs", res["nonprojective_arcs"]),
        ("lifted arcs by lifts 1 / 2 / 3 / >3", " / ".join(str(lifts[k]) for k in ("1", "2", "3", ">3"))),
        ("labels before / after", f"{res['labels_before']} / {res['labels_after']}"),
        ("non-projective arcs restored", f"{res['restored_arcs']} ({res['restored_percent']:.2f}%)"),
        ("round-trip LAS", f"{res['roundtrip_las']:.2f}"),
    ], title=f"{path} ({encoding})")
    for f in res.get("failures", []):
        words = " ".join(f"{i}:{lab}>{h}" for i, (h, lab) in enumerate(zip(f["heads"], f["labels"]), 1))
        print(f"word {f['word']}: gold head {f['gold_head']}, restored {f['restored_head']}, "
              f"{f['lifts']} lift(s), label {f['projectivized_label']}\n  {words}")


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
            raise ValueError(Errors.E040.format(gold=gold, n_gold=n_g, system=system, n_system=n_s))
        if g.forms != s.forms:
            i = next((i for i, (a, b) in enumerate(zip(g.forms, s.forms)) if a != b), min(len(g), len(s)))
            reason = (f"{len(g)} words in gold, {len(s)} in system" if len(g) != len(s)
                      else f"word {i + 1} is '{g.forms[i]}' in gold, '{s.forms[i]}' in system")
            raise ValueError(Errors.E041.format(sent=n, gold_line=g.line, system_line=s.line, reason=reason))
        for sent, path in ((g, gold), (s, system)):
            if sent.heads is None:
                raise ValueError(Errors.E042.format(path=path, line=sent.line, sent=n))
        yield (g.heads, g.deprels), (s.heads, s.deprels)


@app.command()
def evaluate(
    gold: Path = typer.Argument(..., help="Gold CoNLL-U"),
    system: Path = typer.Argument(..., help="System CoNLL-U over the same words"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """UAS, LAS, exact match and non-projective arc P/R/F (all words), then
    UAS / LAS by gold arc length, and over the long arcs (7+) by gold label
    and side of the head (``--json``: all of them)."""
    scores = Scores()
    try:
        for g, s in paired_trees(gold, system):
            scores.add(g, s)
    except (ConlluError, FileNotFoundError, ValueError) as e:
        fail(str(e))
    res = scores.as_dict()
    if as_json:
        print(json.dumps({**res, "by_length": scores.by_length(), "long_arcs": scores.long_arcs()}, indent=2))
        return
    msg.table([(k, f"{v:.2f}" if isinstance(v, float) else v) for k, v in res.items()],
              title=f"{system} against {gold}")
    msg.table([(length, v["arcs"], f"{v['UAS']:.2f}", f"{v['LAS']:.2f}") for length, v in scores.by_length().items()],
              header=("arc length", "gold arcs", "UAS", "LAS"), title="By the length of the gold arc")
    msg.table([(kind, v["arcs"], f"{v['UAS']:.2f}", f"{v['LAS']:.2f}") for kind, v in scores.long_arcs(top=10).items()],
              header=("gold label, side of the head", "gold arcs", "UAS", "LAS"),
              title=f"The gold arcs of {LENGTH_BINS[-1]} words, the most frequent kinds")


@app.command()
def oracle(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    system: str = typer.Option("2-planar", "--system", "-s", help="arc-eager|planar|2-planar|swap"),
    oracle_name: str = typer.Option("lazy", "--oracle", "-o", help="swap: eager|lazy"),
    encoding: str = typer.Option("head+path", "--encoding", "-e", help="arc-eager: " + "|".join(ENCODINGS)),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run a system's static oracle over every sentence: trees reproduced
    exactly, trees the system cannot cover, transitions per type."""
    import time

    from .systems import system_for_trees
    from .systems.base import oracle_check

    try:
        trees = list(trees_of(path))
        start = time.perf_counter()
        ts = system_for_trees(system, trees, oracle=oracle_name, encoding=encoding)
        res = oracle_check(ts, trees)
        res["seconds"] = time.perf_counter() - start
    except (ConlluError, FileNotFoundError, ValueError) as e:
        fail(str(e))
    res = {"file": str(path), "system": system, **({"oracle": oracle_name} if system == "swap" else {}),
           **({"encoding": encoding} if system == "arc-eager" else {}), **res}
    if as_json:
        print(json.dumps(res, indent=2))
        return
    rows = [("trees", res["trees"]), ("reproduced", res["reproduced"]), ("not covered", res["not_covered"])]
    rows += [(f"{k} transitions", v) for k, v in res["transitions"].items()]
    rows.append(("seconds", f"{res['seconds']:.2f}"))
    msg.table(rows, title=f"{path}: {system}" + (f" ({oracle_name} oracle)" if system == "swap" else ""))


from . import bench, cli_pipeline  # noqa: E402,F401  (register their subcommands)


def main() -> None:
    app()
