"""Treebank analysis: ``stats`` (Gómez-Rodríguez & Nivre 2010, Table 1),
``transform-check`` (Nivre & Nilsson 2005, Experiment 1; Nilsson 2007,
Experiment I) and ``oracle``."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Dict, List

import typer

from spacy_planar.defaults import LANG
from spacy_planar.cli._app import flag, msg, trees_of
from spacy_planar_lab._app import lab_app
from spacy_planar.io.conllu import read_conllu, roundtrip_diffs
from spacy_planar_lab.experiments import projectivization_check, tree_transform_check
from spacy_planar.parser.transition.catalog import ENCODING, SPECS, SWAP_ORACLE, SYSTEMS, spec_of, system_for_trees
from spacy_planar.parser.shared.codec import TreeCodec
from spacy_planar.parser.transition.driver import oracle_check
from spacy_planar.parser.transition.factory import DEFAULT_MODEL
from spacy_planar.trees.algorithms import analyse
from spacy_planar.trees.pseudoproj import ENCODINGS
from spacy_planar.trees.transforms import TRANSFORMS

TRANSFORM_HELP = "A tree transform (repeat for several; 'all'): " + "|".join(TRANSFORMS)


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


@lab_app.command()
def stats(
    files: List[Path] = typer.Argument(..., help="CoNLL-U files"),
    as_json: bool = flag(False, "--json", help="One JSON object per file, counts"),
) -> None:
    """Projectivity, planarity, m-planarity and ill-nestedness of treebanks."""
    rows = [stats_of(f) for f in files]
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


@lab_app.command("transform-check")
def transform_check_cmd(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    encoding: str = typer.Option(ENCODING, "--encoding", "-e", help="|".join(ENCODINGS)),
    as_json: bool = flag(False, "--json"),
    failures: int = typer.Option(0, "--failures", help="Show up to N arcs not restored"),
    transforms: List[str] = typer.Option(None, "--transform", "-t",
                                         help=TRANSFORM_HELP),
) -> None:
    """Transform a treebank and back, and count what comes back.

    Without --transform, Experiment 1 of Nivre & Nilsson (2005): projectivize
    with --encoding, deprojectivize. With --transform, Experiment I of Nilsson
    (2007, Table 4.4): each coordination or verb-group transform and its
    inverse: structures found, the round trip's attachment scores overall and
    on the arcs the transform touched, and (--failures N) words that do not
    come back."""
    if transforms:
        _tree_transform_check(path, list(TRANSFORMS) if transforms == ["all"] else transforms, as_json, failures)
        return
    res = projectivization_check(trees_of(path), encoding, keep_failures=failures)
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


def _tree_transform_check(path: Path, names: List[str], as_json: bool, failures: int) -> None:
    trees = list(trees_of(path))
    results = [{"file": str(path), **tree_transform_check(trees, name, keep_failures=failures)}
               for name in names]
    if as_json:
        print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
        return
    msg.table([(r["transform"], r["found"], f"{r['touched_arcs']} ({r['touched_percent']:.2f}%)",
                f"{r['roundtrip_uas']:.3f}", f"{r['roundtrip_las']:.3f}",
                *(("-", "-") if r["touched_uas"] is None else (f"{r['touched_uas']:.2f}", f"{r['touched_las']:.2f}")))
               for r in results],
              header=("transform", "found", "touched arcs", "round-trip UAS", "LAS", "touched UAS", "LAS"),
              divider=True, aligns=("l",) + ("r",) * 6, title=f"{path}: {len(trees)} trees")
    for r in results:
        for f in r.get("failures", []):
            words = " ".join(f"{i}:{lab}>{h}" for i, (h, lab) in enumerate(zip(f["heads"], f["labels"]), 1))
            print(f"{r['transform']}: word {f['word']}: gold {f['gold'][1]}>{f['gold'][0]}, transformed "
                  f"{f['transformed'][1]}>{f['transformed'][0]}, restored {f['restored'][1]}>{f['restored'][0]}"
                  f"\n  {words}")


# the factory's system (the recommended parser's)
DEFAULT_SYSTEM = next(spec.name for spec in SPECS
                      if spec.registry_name == DEFAULT_MODEL["transition_system"]["@transition_systems"])


@lab_app.command()
def oracle(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    system: str = typer.Option(DEFAULT_SYSTEM, "--system", "-s", help="|".join(SYSTEMS)),
    oracle_name: str = typer.Option(SWAP_ORACLE, "--oracle", "-o", help="swap: eager|lazy"),
    encoding: str = typer.Option(ENCODING, "--encoding", "-e", help="arc_eager, top_down: " + "|".join(ENCODINGS)),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Run a system's static oracle over every tree of a treebank.

    Run a system's static oracle over every sentence: trees reproduced
    exactly, trees the system cannot cover, transitions per type."""
    spec = spec_of(system)
    system = spec.name
    # the systems that parse through the pseudo-projective encodings take --encoding
    encoded = spec.encoded
    trees = list(trees_of(path))
    start = time.perf_counter()
    options = {"oracle": oracle_name} if spec.oracles else {"encoding": encoding} if encoded else {}
    ts = system_for_trees(system, trees, **options)
    res = oracle_check(TreeCodec(ts), trees)
    res["seconds"] = time.perf_counter() - start
    res = {"file": str(path), "system": system, **({"oracle": oracle_name} if spec.oracles else {}),
           **({"encoding": encoding} if encoded else {}), **res}
    if as_json:
        print(json.dumps(res, indent=2))
        return
    rows = [("trees", res["trees"]), ("reproduced", res["reproduced"]), ("not covered", res["not_covered"])]
    rows += [(f"{k} transitions", v) for k, v in res["transitions"].items()]
    rows.append(("seconds", f"{res['seconds']:.2f}"))
    msg.table(rows, title=f"{path}: {system}" + (f" ({oracle_name} oracle)" if spec.oracles else ""))


@lab_app.command("roundtrip-check")
def roundtrip_check(
    files: List[Path] = typer.Argument(..., help="CoNLL-U files"),
    lang: str = typer.Option(LANG, "--lang", "-l"),
) -> None:
    """Check that CoNLL-U -> DocBin -> CoNLL-U gives every sentence back.

    Check that CoNLL-U -> .spacy -> CoNLL-U keeps every sentence: ID to
    DEPREL, SpaceAfter, range lines and comments (exit 1 on a difference)."""
    bad = False
    for path in files:
        n, diffs = roundtrip_diffs(path, lang)
        if diffs:
            bad = True
            msg.fail(f"{path}: {len(diffs)} line(s) differ (first shown)")
            for line, want, got in diffs:
                print(f"  {path}:{line}\n    expected: {want}\n    got:      {got}")
        else:
            msg.good(f"{path}: {n} sentences come back unchanged")
    if bad:
        raise typer.Exit(1)


