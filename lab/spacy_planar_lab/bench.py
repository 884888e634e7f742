"""``spacy-planar bench ...``: throughput benchmarks, best of several runs.

Timings vary by a few percent between identical runs on a shared machine, so
each figure is the best (and median) of ``--repeats`` runs in one process.
"""
from __future__ import annotations

import json
import shutil
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import typer

from spacy_planar.cli._app import beam_options, flag, load_pipeline, msg, trees_of
from spacy_planar_lab._app import bench_app
from spacy_planar.corpus.files import given_sentences, input_docs
from spacy_planar.defaults import BATCH_SIZE, LANG
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import read_conllu
from spacy_planar_lab.analyse import stats_of

BEAM_HELP = "NAME=WIDTH[+merge]: that NAME parses with a beam of WIDTH (merging equivalent states)"


def summary(words: int, seconds: List[float]) -> Dict[str, float]:
    """Best, median and max of repeated timings, and words/s of the best."""
    return {"words": words, "best_s": min(seconds), "median_s": statistics.median(seconds),
            "max_s": max(seconds), "words_per_s": words / min(seconds)}


def timed(fn: Callable[[], int], repeats: int) -> Dict[str, float]:
    """Run ``fn`` (which returns a number of words) ``repeats`` times."""
    seconds: List[float] = []
    words = 0
    for _ in range(repeats):
        t = time.perf_counter()
        words = fn()
        seconds.append(time.perf_counter() - t)
    return summary(words, seconds)


def report(rows: Dict[str, Dict[str, float]], as_json: bool, title: str, baseline: Optional[str] = None) -> None:
    """Print the rows as a table (or JSON); with ``baseline``, the ratio of
    each row's words/s to that row's."""
    if baseline is not None:
        for r in rows.values():
            r["ratio"] = r["words_per_s"] / rows[baseline]["words_per_s"]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    ratio = ("x " + baseline,) if baseline is not None else ()
    msg.table([(k, int(r["words"]), f"{r['best_s']:.2f}", f"{r['median_s']:.2f}", f"{r['max_s']:.2f}",
                f"{r['words_per_s']:,.0f}") + ((f"{r['ratio']:.2f}",) if ratio else ()) for k, r in rows.items()],
              header=("task", "words", "best s", "median s", "max s", "words/s (best)") + ratio,
              aligns=("l",) + ("r",) * (5 + len(ratio)), title=title)


@bench_app.command("convert")
def bench_convert(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """CoNLL-U -> DocBin bytes, and DocBin -> CoNLL-U text, in words/s."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_planar.io.conllu import conllu_to_docs, docs_to_conllu
    from spacy_planar.io.docbins import add_docs, docbin_docs

    vocab = spacy.blank(LANG).vocab
    state = {}

    def read() -> int:
        db = DocBin(store_user_data=True)
        add_docs(db, conllu_to_docs(path, vocab))
        state["bytes"] = db.to_bytes()
        return sum(len(t) for t in db.tokens)

    def write() -> int:
        docs = list(docbin_docs(DocBin(store_user_data=True).from_bytes(state["bytes"]), vocab))
        for _ in docs_to_conllu(docs):
            pass
        return sum(len(d) for d in docs)

    rows = {"conllu -> spacy": timed(read, repeats), "spacy -> conllu": timed(write, repeats)}
    report(rows, as_json, f"convert {path}")


@bench_app.command("stats")
def bench_stats(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """The ``stats`` pass (reading included), in words/s."""
    rows = {"stats": timed(lambda: stats_of(path)["words"], repeats)}
    report(rows, as_json, f"stats {path}")


@bench_app.command("oracle")
def bench_oracle(
    path: Path = typer.Argument(..., help="A CoNLL-U file"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """The static oracle pass of every system (reading excluded), in words/s."""
    from spacy_planar.parser.transition.catalog import SPECS, system_for_trees
    from spacy_planar.parser.shared.codec import TreeCodec
    from spacy_planar.parser.transition.driver import oracle_check

    trees = list(trees_of(path))
    words = sum(len(h) for h, _ in trees)
    rows = {}
    for spec in SPECS:
        for variant, kw in spec.variants:
            def run(name: str = spec.name, kw: dict = kw) -> int:
                oracle_check(TreeCodec(system_for_trees(name, trees, **kw)), trees)
                return words
            rows[spec.name + (f" ({variant})" if variant else "")] = timed(run, repeats)
    report(rows, as_json, f"oracle {path}")


def _spin(stop) -> None:
    """Keep one core busy until ``stop`` is set (``bench speed --busy``)."""
    x = 0
    while not stop.is_set():
        for _ in range(100000):
            x += 1


def _pipelines(models: List[str]) -> List:
    pairs = []
    for item in models:
        name, _, path = item.partition("=")
        pairs.append((name, path or name))
    return pairs


@bench_app.command("speed")
def bench_speed(
    data: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U to parse"),
    models: List[str] = typer.Argument(..., help="NAME=PIPELINE_DIR pairs; the first is the baseline"),
    repeats: int = typer.Option(5, "--repeats", "-r"),
    batch_size: int = typer.Option(BATCH_SIZE, "--batch-size", "-b", help="nlp.pipe batch size (spaCy's default)"),
    busy: int = typer.Option(0, "--busy", help="Keep this many other processes busy while timing (a busy machine)"),
    beams: List[str] = typer.Option([], "--beam", help=BEAM_HELP),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Parse speed of trained pipelines, side by side in one run.

    Parse speed of whole pipelines, side by side in one run: the repeats
    go round the pipelines in turn; best, median and max, and the ratio to
    the first pipeline. Threads as the environment sets them (OMP_NUM_THREADS=1
    for one thread); ``--busy N`` times them while N other processes spin,
    as on a machine doing other work. ``--beam NAME=WIDTH``: that NAME's
    planar_parser parses with a beam (the same pipeline may be given twice,
    under two NAMEs)."""
    import multiprocessing
    import os

    msg.info(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, {busy} busy processes, "
             f"{os.cpu_count()} cores")
    sents = list(read_conllu(data))
    words = sum(len(s) for s in sents)
    beams_of = beam_options(beams)
    pipes = [(name, load_pipeline(path, beams_of.get(name))) for name, path in _pipelines(models)]
    seconds: Dict[str, List[float]] = {name: [] for name, _ in pipes}
    for _, nlp in pipes:  # warm up
        list(given_sentences(nlp, input_docs(nlp, sents[:200]), batch_size))
    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(busy)]
    for p in spinners:
        p.start()
    try:
        for _ in range(repeats):
            for name, nlp in pipes:
                seconds[name].append(_time_parse(nlp, input_docs(nlp, sents), batch_size))
    finally:
        stop.set()
        for p in spinners:
            p.join()
    rows = {name: summary(words, s) for name, s in seconds.items()}
    report(rows, as_json, f"parse speed, {data}", baseline=pipes[0][0])


@bench_app.command("lengths")
def bench_lengths(
    data: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U to parse"),
    models: List[str] = typer.Argument(..., help="NAME=PIPELINE_DIR pairs"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    bin_width: int = typer.Option(5, "--bin", help="Sentence lengths per bin"),
    beams: List[str] = typer.Option([], "--beam", help=BEAM_HELP),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Also draw the curves into this SVG file"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Parse time per sentence against sentence length (Hayashi et al. 2012,
    Figure 5): the sentences are grouped by length in bins of ``--bin``
    words, each bin parsed as one stream of Docs by each pipeline (best of
    ``--repeats``), and its time divided by its sentences. Bins with fewer
    than 5 sentences are left out."""
    sents = list(read_conllu(data))
    bins: Dict[int, List] = {}
    for sent in sents:
        bins.setdefault((len(sent) - 1) // bin_width, []).append(sent)
    bins = {b: group for b, group in sorted(bins.items()) if len(group) >= 5}
    beams_of = beam_options(beams)
    pipes = [(name, load_pipeline(path, beams_of.get(name))) for name, path in _pipelines(models)]
    rows: Dict[str, Dict[str, float]] = {}
    for name, nlp in pipes:
        list(given_sentences(nlp, input_docs(nlp, sents[:200])))  # warm up
        for b, group in bins.items():
            best = min(_time_parse(nlp, input_docs(nlp, group)) for _ in range(repeats))
            rows.setdefault(f"{b * bin_width + 1}-{(b + 1) * bin_width}", {"sentences": len(group)})[name] = \
                1000 * best / len(group)
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        names = [name for name, _ in pipes]
        msg.table([(length, r["sentences"]) + tuple(f"{r[n]:.2f}" for n in names) for length, r in rows.items()],
                  header=("length", "sentences") + tuple(f"{n} ms/sent" for n in names),
                  aligns=("l",) + ("r",) * (1 + len(names)), title=f"parse time by sentence length, {data}")
    if svg is not None:
        from spacy_planar.io.conllu import atomic_output
        from spacy_planar.eval.render import line_chart
        mids = [(b + 0.5) * bin_width for b in bins]
        series = {name: list(zip(mids, [r[name] for r in rows.values()])) for name, _ in pipes}
        with atomic_output(svg) as f:
            f.write(line_chart(series, "sentence length (words)", "ms per sentence"))
        msg.good(f"Wrote {svg}")


def _time_parse(nlp, docs, batch_size: int = BATCH_SIZE) -> float:
    """Seconds to parse ``docs`` with ``nlp.pipe`` (spaCy's default batch size)."""
    t = time.perf_counter()
    for _doc in given_sentences(nlp, docs, batch_size):
        pass
    return time.perf_counter() - t


def repeated_corpus(source: Path, words: int, n_files: int, folder: Path) -> Tuple[Path, Path, int]:
    """The sentences of a CoNLL-U file repeated until at least ``words``
    words, cut into ``n_files`` files of ``folder/corpus`` and written whole
    as ``folder/whole.conllu``; (the corpus folder, the whole file, words)."""
    blocks = [b for b in source.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    per_block = sum(sum(1 for line in b.splitlines() if line.split("\t", 1)[0].isdigit()) for b in blocks)
    if not per_block:
        raise UserError(Errors.E034.format(sources=source))
    copies = -(-words // per_block)
    all_blocks = blocks * copies
    corpus = folder / "corpus"
    corpus.mkdir()
    size = -(-len(all_blocks) // n_files)
    for i in range(n_files):
        part = all_blocks[i * size:(i + 1) * size]
        if part:
            (corpus / f"part{i:05}.conllu").write_text("\n\n".join(part) + "\n\n", encoding="utf-8")
    whole = folder / "whole.conllu"
    whole.write_text("\n\n".join(all_blocks) + "\n\n", encoding="utf-8")
    return corpus, whole, per_block * copies


def corpus_runs(model: str, corpus: Path, whole: Path, tmp: Path, workers: List[int]) -> List[Tuple[str, Callable]]:
    """What ``bench corpus`` times, each a (name, run) whose run parses and
    returns the words it parsed, one thread per process: ``parse`` of the
    ``whole`` file in this process; ``parse-corpus`` of the ``corpus``
    folder in this process, with a pool of N processes (N > 1) and on a Dask
    LocalCluster of N workers, for each N of ``workers`` (outputs in
    ``tmp``, cleared before each run)."""
    from threadpoolctl import threadpool_limits

    from spacy_planar.corpus.files import parse_file
    from spacy_planar.corpus.jobs import corpus_jobs
    from spacy_planar.corpus.pool import ParseOptions, cluster_client, parse_corpus

    outputs = tmp / "out"
    jobs = corpus_jobs(corpus, outputs)

    def one_file() -> int:
        with threadpool_limits(1):
            return parse_file(load_pipeline(model), whole, tmp / "whole.out.conllu", progress=False).words

    def in_corpus(n_process: int = 1, local_workers: int = 0) -> Callable[[], int]:
        def run() -> int:
            shutil.rmtree(outputs, ignore_errors=True)
            with cluster_client(local_workers=local_workers) as client, threadpool_limits(1):
                return parse_corpus(model, jobs, ParseOptions(), n_process=n_process, client=client,
                                    progress=False).words
        return run

    runs = [("parse, one file", one_file), ("parse-corpus, this process", in_corpus())]
    for n in workers:
        if n > 1:
            runs.append((f"parse-corpus --n-process {n}", in_corpus(n_process=n)))
        runs.append((f"parse-corpus --local-workers {n}", in_corpus(local_workers=n)))
    return runs


@bench_app.command("corpus")
def bench_corpus(
    model: str = typer.Argument(..., help="A trained pipeline"),
    source: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U, repeated into a corpus of --words words"),
    words: int = typer.Option(1_000_000, "--words", help="The corpus's size in words, at least"),
    n_files: int = typer.Option(100, "--files", help="Files the corpus is cut into"),
    workers: List[int] = typer.Option([1, 2], "--workers", "-w", help="Local Dask workers (and pool processes) "
                                      "to time, each one thread"),
    repeats: int = typer.Option(1, "--repeats", "-r"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Words/s of ``parse-corpus`` against ``parse`` on one file.

    The source's sentences, repeated, make a corpus of at least ``--words``
    words in ``--files`` CoNLL-U files (and, for ``parse``, one file with
    all of them), in a temporary folder. Timed, each from its start to its
    last output (loading the pipeline and starting the workers included):
    ``parse`` of the one file in this process; ``parse-corpus`` in this
    process, with a pool of N processes, and on a Dask LocalCluster of N
    workers, for each N of ``--workers``; every run with one thread per
    process. The ratio is to ``parse-corpus`` on one Dask worker."""
    import os
    import tempfile


    with tempfile.TemporaryDirectory() as tmp:
        corpus, whole, total = repeated_corpus(source, words, n_files, Path(tmp))
        msg.info(f"{os.cpu_count()} cores; {source} repeated: {total} words, {n_files} files")
        timings = corpus_runs(model, corpus, whole, Path(tmp), workers)
        seconds: Dict[str, List[float]] = {name: [] for name, _ in timings}
        load_pipeline(model)  # the imports, once, outside the timings
        for _ in range(repeats):
            for name, fn in timings:
                start = time.perf_counter()
                assert fn() == total, name
                seconds[name].append(time.perf_counter() - start)
        rows = {name: summary(total, s) for name, s in seconds.items()}
    baseline = f"parse-corpus --local-workers {workers[0]}"
    report(rows, as_json, f"corpus speed, {model}", baseline=baseline if baseline in rows else None)
