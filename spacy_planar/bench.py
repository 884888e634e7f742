"""``spacy-planar bench ...``: throughput benchmarks, best of several runs.

Timings vary by a few percent between identical runs on a shared machine, so
each figure is the best (and median) of ``--repeats`` runs in one process.
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List

import typer

from .cli import bench_app, msg, stats_of


def timed(fn: Callable[[], int], repeats: int) -> Dict[str, float]:
    """Run ``fn`` (which returns a number of words) ``repeats`` times."""
    seconds: List[float] = []
    words = 0
    for _ in range(repeats):
        t = time.perf_counter()
        words = fn()
        seconds.append(time.perf_counter() - t)
    return {"words": words, "best_s": min(seconds), "median_s": statistics.median(seconds),
            "max_s": max(seconds), "words_per_s": words / min(seconds)}


def report(rows: Dict[str, Dict[str, float]], as_json: bool, title: str) -> None:
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    msg.table([(k, int(r["words"]), f"{r['best_s']:.2f}", f"{r['median_s']:.2f}", f"{r['max_s']:.2f}",
                f"{r['words_per_s']:,.0f}") for k, r in rows.items()],
              header=("task", "words", "best s", "median s", "max s", "words/s (best)"),
              aligns=("l", "r", "r", "r", "r", "r"), title=title)


@bench_app.command("convert")
def bench_convert(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """CoNLL-U -> DocBin bytes, and DocBin -> CoNLL-U text, in words/s."""
    import spacy
    from spacy.tokens import DocBin

    from .conllu_io import conllu_to_docs, docs_to_conllu

    vocab = spacy.blank("xx").vocab
    state = {}

    def read() -> int:
        db = DocBin(store_user_data=True)
        for doc in conllu_to_docs(path, vocab):
            db.add(doc)
        state["bytes"] = db.to_bytes()
        return sum(len(t) for t in db.tokens)

    def write() -> int:
        docs = list(DocBin(store_user_data=True).from_bytes(state["bytes"]).get_docs(vocab))
        for _ in docs_to_conllu(docs):
            pass
        return sum(len(d) for d in docs)

    rows = {"conllu -> spacy": timed(read, repeats), "spacy -> conllu": timed(write, repeats)}
    report(rows, as_json, f"convert {path}")


@bench_app.command("stats")
def bench_stats(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """The ``stats`` pass (reading included), in words/s."""
    rows = {"stats": timed(lambda: stats_of(path)["words"], repeats)}
    report(rows, as_json, f"stats {path}")


@bench_app.command("oracle")
def bench_oracle(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """The static oracle pass of every system (reading excluded), in words/s."""
    from .cli import trees_of
    from .systems import system_for_trees
    from .systems.base import oracle_check

    trees = list(trees_of(path))
    words = sum(len(h) for h, _ in trees)
    rows = {}
    for name, kw in (("arc-eager", {}), ("planar", {}), ("2-planar", {}),
                     ("swap (eager)", {"oracle": "eager"}), ("swap (lazy)", {"oracle": "lazy"})):
        def run() -> int:
            oracle_check(system_for_trees(name.split()[0], trees, **kw), trees)
            return words
        rows[name] = timed(run, repeats)
    report(rows, as_json, f"oracle {path}")
