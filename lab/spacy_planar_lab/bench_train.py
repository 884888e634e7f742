"""``spacy-planar lab bench train``: training words per second of configs, side by side in one
run, each with its own batches and optimizer (the config's ``[training]``), as ``spacy train``
steps; and, with ``--profile``, where a step's time goes (issue 87).

Each config trains ``--warmup`` steps untimed (the oracle's first answers, caches), then
``--repeats`` rounds of ``--steps`` steps go round the configs in turn, once per thread setting
(``--threads``: 1 and the machine's default by default); a row's figure is its best round.
``--at-step N`` first draws N of each config's batches without training on them, so that the timed
steps have the sizes a full training's batches have by then (``compounding`` grows them: spaCy's
100 to 1,000 words reach 1,000 after about 2,300 steps); the weights are the untrained ones, so a
system whose moves depend on them (swap's SWAPs, exploration) is timed as an untrained one.
``--epoch`` times, after the rounds, one whole epoch of each config on one thread (the rest of the
epoch the stream stands in drawn untrained, then every batch of the next: its batch sizes as a
training meets them there).
The profile (cProfile, one more round of each config) sums each function's own time into
what it belongs to: the optimizer and averages, the LSTM, the character CNN, the transition loop,
the oracle, the lemmatizer, matrix products, Thinc's layers, spaCy, numpy, the rest of ours and
other Python; and each component's ``update`` (its forward and backward, the shared encoder's
backward for its listeners) and ``finish_update`` (the optimizer on its weights) per step.
"""
from __future__ import annotations

import cProfile
import json
import pstats
import time
from itertools import islice
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import typer

from spacy_planar.cli._app import flag, msg, read_config
from spacy_planar.io.conllu import check_input
from spacy_planar_lab._app import bench_app
from spacy_planar_lab.bench import _pipelines, report, summary

# where a function's own time goes: the first rule whose test its (file, function) passes
CATEGORIES: List[Tuple[str, Tuple[str, ...], Tuple[str, ...]]] = [
    # (row, any of these in the file's path, any of these in the function's name)
    ("optimizer and averages", ("thinc/optimizers", "spacy_planar/model/optimizer", "_adam"), ()),
    ("LSTM", ("lstm",), ()),
    ("character CNN", ("model/chars",), ()),
    ("oracle", ("oracle",), ()),
    ("transition loop", ("parser/transition/", "parser/shared/"), ()),
    ("lemmatizer", ("lemmat",), ()),
    ("matrix products", (), ("gemm", "dot", "matmul", "einsum")),
    ("Thinc layers", ("thinc/",), ()),
    ("spaCy", ("/spacy/",), ()),
    ("numpy", ("numpy",), ("numpy",)),
    ("spacy-planar, other", ("spacy_planar",), ()),
]
OTHER = "other Python"


def category(filename: str, function: str) -> str:
    """The profile's row of one function (``CATEGORIES``)."""
    path, name = filename.replace("\\", "/").lower(), function.lower()
    for row, paths, names in CATEGORIES:
        if any(p in path for p in paths) or any(n in name for n in names):
            return row
    return OTHER


class Run:
    """One config set up to train: its pipeline initialized on TRAIN, its optimizer, dropout,
    frozen and annotating components, and an endless stream of its own batches."""

    def __init__(self, name: str, path: str, train_path: Path):
        from spacy.schemas import ConfigSchemaTraining
        from spacy.training.initialize import init_nlp
        from spacy.training.loop import create_train_batches
        from spacy.util import load_config, registry, resolve_dot_names

        config = load_config(path, overrides={"paths.train": str(train_path), "paths.dev": str(train_path)},
                             interpolate=False)
        self.name, self.nlp = name, init_nlp(config)
        resolved = self.nlp.config.interpolate()
        T = registry.resolve(resolved["training"], schema=ConfigSchemaTraining)
        corpus = resolve_dot_names(resolved, [T["train_corpus"]])[0]
        self.optimizer, self.dropout = T["optimizer"], T["dropout"]
        self.exclude, self.annotates = T["frozen_components"], T["annotating_components"]
        self.stream: Iterator = create_train_batches(self.nlp, corpus, T["batcher"], max_epochs=0)
        self.epoch = 0
        self.batches: Iterator = (self._note(epoch, batch) for epoch, batch in self.stream)

    def _note(self, epoch: int, batch):
        self.epoch = epoch
        return batch

    def skip(self, n: int) -> int:
        """Draw ``n`` batches untrained (the batch-size schedule moves on); their words."""
        return sum(len(eg.reference) for batch in islice(self.batches, n) for eg in batch)

    def whole_epoch(self) -> Tuple[int, float, int]:
        """The next whole epoch of the stream (the rest of the current one drawn untrained), trained
        and timed: words, seconds, steps."""
        words, seconds, steps, timing, started = 0, 0.0, 0, None, self.epoch
        for epoch, batch in self.stream:
            self.epoch = epoch
            if timing is None and epoch == started:
                continue
            timing = epoch if timing is None else timing
            if epoch != timing:  # the epoch after it begins: this batch is trained, not counted
                self.step(batch)
                break
            words += sum(len(eg.reference) for eg in batch)
            t = time.perf_counter()
            self.step(batch)
            seconds += time.perf_counter() - t
            steps += 1
        return words, seconds, steps

    def steps(self, n: int) -> Tuple[int, float]:
        """``n`` training steps as spaCy's loop takes them: words trained on, seconds."""
        batches = list(islice(self.batches, n))
        words = sum(len(eg.reference) for batch in batches for eg in batch)
        t = time.perf_counter()
        for batch in batches:
            self.step(batch)
        return words, time.perf_counter() - t

    def step(self, batch) -> None:
        """One step as spaCy's loop takes it: the update, each component's optimizer step."""
        self.nlp.update(batch, drop=self.dropout, sgd=False, exclude=self.exclude, annotates=self.annotates)
        for name, proc in self.nlp.pipeline:
            if name not in self.exclude and getattr(proc, "is_trainable", False) \
                    and proc.model not in (True, False, None):
                proc.finish_update(self.optimizer)
        self.optimizer.step_schedules()

    def memory(self, n: int) -> Dict[str, float]:
        """The most memory one of ``n`` steps allocates above what is held before it (Python's and
        numpy's allocations, ``tracemalloc``), in MB, and that step's words."""
        import tracemalloc

        peak, words = 0.0, 0
        tracemalloc.start()
        try:
            for batch in islice(self.batches, n):
                before = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
                self.step(batch)
                grown = (tracemalloc.get_traced_memory()[1] - before) / 2 ** 20
                if grown > peak:
                    peak, words = grown, sum(len(eg.reference) for eg in batch)
        finally:
            tracemalloc.stop()
        return {"peak_mb": peak, "words": words, "steps": n}

    def profile(self, n: int) -> Dict:
        """The time of ``n`` steps by ``CATEGORIES`` (shares of the whole) and by component
        (each one's ``update`` and ``finish_update``, timed on the instance)."""
        components: Dict[str, float] = {}
        for name, proc in self.nlp.pipeline:
            for method in ("update", "finish_update"):
                if hasattr(proc, method):
                    setattr(proc, method, _timed(getattr(proc, method), f"{name}.{method}", components))
        profiler = cProfile.Profile()
        try:
            profiler.enable()
            words, seconds = self.steps(n)
            profiler.disable()
        finally:
            for _name, proc in self.nlp.pipeline:
                for method in ("update", "finish_update"):
                    proc.__dict__.pop(method, None)
        own: Dict[str, float] = {}
        for (filename, _line, function), (_cc, _nc, tt, _ct, _callers) in pstats.Stats(profiler).stats.items():
            row = category(filename, function)
            own[row] = own.get(row, 0.0) + tt
        total = sum(own.values()) or 1.0
        return {"words": words, "seconds": seconds, "steps": n,
                "share": {k: v / total for k, v in sorted(own.items(), key=lambda kv: -kv[1])},
                "component_s_per_step": {k: v / n for k, v in sorted(components.items(), key=lambda kv: -kv[1])}}


def _timed(method, key: str, into: Dict[str, float]):
    """``method`` adding its seconds to ``into[key]``."""
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            into[key] = into.get(key, 0.0) + time.perf_counter() - t
    return timed


def thread_limits(threads: int):
    """A context in which BLAS and OpenMP use ``threads`` threads (0: as the process has them)."""
    from contextlib import nullcontext

    from threadpoolctl import threadpool_limits

    return nullcontext() if threads == 0 else threadpool_limits(limits=threads)


@bench_app.command("train")
def bench_train(
    train_path: Path = typer.Argument(..., help="Training corpus (.spacy, or what the configs' reader reads)"),
    configs: List[str] = typer.Argument(..., help="NAME=CONFIG pairs; the first is the baseline"),
    steps: int = typer.Option(30, "--steps", help="Timed steps a round (the config's own batches)"),
    warmup: int = typer.Option(3, "--warmup", help="Untimed steps first"),
    repeats: int = typer.Option(3, "--repeats", "-r", help="Rounds; each row's figure is its best"),
    threads: List[int] = typer.Option([1, 0], "--threads", help="BLAS/OpenMP threads (0: the default); repeatable"),
    profile: bool = flag(False, "--profile", help="Where the time goes, one more round of each config"),
    memory: bool = flag(False, "--memory", help="The most a step allocates, one more round of each config"),
    at_step: int = typer.Option(0, "--at-step", help="Draw this many batches untrained first: the timed steps "
                                "have the sizes a full training's have by then (2300: 1,000 words)"),
    epoch: bool = flag(False, "--epoch", help="Then time one whole epoch of each config, one thread"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Training speed of configs, side by side in one run, as spacy train steps (the module's text)."""
    for _name, path in _pipelines(configs):
        read_config(Path(path))  # one line (E031, E032, E088) where it is no config
    check_input(train_path)
    runs = [Run(name, path, train_path) for name, path in _pipelines(configs)]
    for run in runs:
        run.skip(at_step)
        run.steps(warmup)
    rows: Dict[str, Dict[str, float]] = {}
    for n_threads in threads:
        timings: Dict[str, List[Tuple[int, float]]] = {run.name: [] for run in runs}
        with thread_limits(n_threads):
            for _ in range(repeats):
                for run in runs:
                    timings[run.name].append(run.steps(steps))
        for name, rounds in timings.items():
            best = min(rounds, key=lambda ws: ws[1] / max(ws[0], 1))  # words differ by round: per word
            row = summary(best[0], [s * best[0] / max(w, 1) for w, s in rounds])
            rows[f"{name}, {n_threads or 'default'} thread{'s' if n_threads != 1 else ''}"] = row
    profiles = {run.name: run.profile(steps) for run in runs} if profile else {}
    peaks = {run.name: run.memory(steps) for run in runs} if memory else {}
    if epoch:
        with thread_limits(1):
            for run in runs:
                words, seconds, n = run.whole_epoch()
                rows[f"{run.name}, a whole epoch ({n} steps), 1 thread"] = summary(words, [seconds])
    baseline = rows[next(iter(rows))]["words_per_s"]
    for row in rows.values():
        row["ratio"] = row["words_per_s"] / baseline
    if as_json:
        print(json.dumps({"rows": rows, "profile": profiles, "memory": peaks}, indent=2))
        return
    report(rows, False, f"training speed, {steps} steps of each config's own batches"
                        f"{f' from step {at_step:,}' if at_step else ''}, {train_path}",
           baseline=next(iter(rows)))  # the ratio again, to the first row
    for name, p in profiles.items():
        msg.table([(k, f"{100 * v:.0f}%") for k, v in p["share"].items()], header=("where", "share"),
                  aligns=("l", "r"), title=f"{name}: {p['steps']} steps, {p['words'] / p['seconds']:,.0f} words/s "
                                          f"under the profiler")
        msg.table([(k, f"{v:.3f}") for k, v in p["component_s_per_step"].items()], header=("component", "s a step"),
                  aligns=("l", "r"))
    if peaks:
        msg.table([(name, f"{p['peak_mb']:,.1f}", p["words"]) for name, p in peaks.items()],
                  header=("config", "peak MB a step", "its words"), aligns=("l", "r", "r"),
                  title=f"the most one of {steps} steps allocates")
