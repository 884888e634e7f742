"""Running a corpus's jobs (``parse_corpus``): in this process, a pool of processes or on a Dask
cluster (``dask.py``), each loading the pipeline once and running ``files.parse_file``."""
from __future__ import annotations

import functools
from collections import Counter
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from spacy_planar.corpus.files import FileReport, parse_file
from spacy_planar.corpus.jobs import Job, is_complete, remove_leftovers, written_by
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.progress import progress_bar


@dataclass(frozen=True)
class ParseOptions:
    """How every job is parsed (the ``parse`` command's options); ``header``:
    each output's first line (the pipeline that wrote it); ``skip_invalid``:
    a bad input is reported and skipped instead of stopping the run."""
    sentencizer: bool = False
    batch_size: Optional[int] = None  # None: the pipeline's [nlp] batch_size
    header: str = ""
    skip_invalid: bool = False


# the pipelines loaded in this process, by model: a Dask worker's plugin or a pool's initializer fills it
_PIPELINES: Dict[str, Tuple[object, threading.Lock]] = {}
LOADS: Dict[str, int] = {}  # how often this process loaded each model (once, unless a plugin's teardown ran)


def load_once(model: str) -> Tuple[object, threading.Lock]:
    """This process's pipeline for ``model``, loaded on first use, with a
    lock (a worker with several threads parses one file at a time with it)."""
    if model not in _PIPELINES:
        import spacy

        _PIPELINES[model] = (spacy.load(model), threading.Lock())
        LOADS[model] = LOADS.get(model, 0) + 1
    return _PIPELINES[model]


def unload(model: str) -> None:
    """Forget this process's pipeline for ``model`` (a Dask worker's teardown)."""
    _PIPELINES.pop(model, None)


def run_job(model: str, job: Job, options: ParseOptions) -> FileReport:
    """Parse one job with this process's pipeline for ``model`` (what a
    pool's process and a Dask worker run)."""
    from threadpoolctl import threadpool_limits

    nlp, lock = load_once(model)
    with lock, threadpool_limits(1):
        try:
            return parse_file(nlp, Path(job.input), Path(job.output), options.sentencizer, options.batch_size,
                              progress=False, header=options.header)
        except (UserError, OSError) as e:
            if not options.skip_invalid:
                raise
            return FileReport(job.input, 0, 0, True, error=str(e))


def _init_pool_process(model: str) -> None:
    load_once(model)


def run_local(model: str, jobs: Sequence[Job], options: ParseOptions, n_process: int,
              done: Callable[[Job, FileReport], None]) -> None:
    """Run ``jobs`` in this process (``n_process`` 1: the pipeline loaded
    once) or in a pool of ``n_process`` processes, each loading the
    pipeline once; ``done`` is called here as each job ends. The first bad
    input stops the run (its error is raised here); the outputs already
    written are complete."""
    if n_process == 1:
        for job in jobs:
            done(job, run_job(model, job, options))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads
    # the pool's processes start (at the submissions) ignoring SIGINT, which they inherit: Ctrl-C reaches this
    # process alone, which stops the pool, instead of each process printing its own traceback
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pool = ProcessPoolExecutor(n_process, mp_context=context, initializer=_init_pool_process, initargs=(model,))
        futures = {pool.submit(run_job, model, job, options): job for job in jobs}
    finally:
        signal.signal(signal.SIGINT, previous)
    with pool:
        try:
            for future in as_completed(futures):
                done(futures[future], future.result())
        except BaseException:
            for future in futures:
                future.cancel()
            raise


@contextmanager
def cluster_client(scheduler: str = "", local_workers: int = 0):
    """A Dask client for ``parse_corpus`` (``corpus.dask.dask_client``: the
    scheduler at ``scheduler``, or a LocalCluster of ``local_workers``),
    closed when the block ends; None where neither is asked for (this
    machine's processes parse)."""
    if not (scheduler or local_workers):
        yield None
        return
    try:
        from spacy_planar.corpus.dask import close_client, dask_client
    except ImportError as e:
        raise UserError(Errors.E106) from e
    client = dask_client(scheduler, local_workers)
    # Ctrl-C: the logs of the client's event loop (another thread) are muted before the interrupt is raised
    # here, not after: the loop's cancellations, which it logs as the interrupt reaches it, are not the user's news
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _muted_interrupt) if main else None
    try:
        yield client
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
        close_client(client)


def _muted_interrupt(signum, frame) -> None:
    """A SIGINT handler: Dask's and its event loop's loggers muted, then
    ``KeyboardInterrupt`` as Python's own handler raises it."""
    import logging

    # their children too: Dask's logging config gives some a level of their own (tornado.application: error)
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in ("distributed", "tornado", "asyncio")]
    for name in {"distributed", "tornado", "asyncio", "tornado.application", *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    raise KeyboardInterrupt


@dataclass
class CorpusReport:
    """What a corpus run did: files parsed, complete outputs kept, words
    parsed, seconds, outputs without UPOS (the pipeline predicts none)."""
    files: int = 0
    skipped: int = 0
    words: int = 0
    seconds: float = 0.0
    missing_upos: int = 0
    repairs: Counter = field(default_factory=Counter)  # what the parsers repaired, by code, workers' too
    invalid: List[str] = field(default_factory=list)  # the one-line errors of the inputs skipped
    todo: int = 0
    jobs: List["Job"] = field(default_factory=list)  # the jobs this run parses

    def complete(self) -> int:
        """How many of this run's outputs are complete on disk now: after an
        interruption, also those whose workers finished after it."""
        return sum(is_complete(job) for job in self.jobs)


def parse_corpus(model: str, jobs: Sequence[Job], options: ParseOptions = ParseOptions(), n_process: int = 1,
                 client=None, progress: bool = True, overwrite: bool = False,
                 report: Optional[CorpusReport] = None) -> CorpusReport:
    """Parse the jobs whose output is missing (``is_complete`` skips the
    others; ``overwrite``: parse every job again) in this process, a pool of
    ``n_process`` processes or on ``client``'s Dask cluster, with a progress
    bar in words/s. Complete outputs another pipeline wrote (their first line
    is not ``options.header``) are a one-line error (E117) unless
    ``overwrite``. ``report`` (filled as jobs end) says how far an
    interrupted run got."""
    report = report if report is not None else CorpusReport()
    remove_leftovers(jobs)
    todo = list(jobs) if overwrite else [job for job in jobs if not is_complete(job)]
    parsing = {job.output for job in todo}
    others = [job for job in jobs if job.output not in parsing and written_by(job) != options.header]
    if others and options.header:
        raise UserError(Errors.E117.format(n=len(others), first=others[0].output, header=options.header.strip()))
    report.skipped = len(jobs) - len(todo)
    report.todo = len(todo)
    report.jobs = todo
    start = time.perf_counter()
    with progress_bar(total=sum(j.words for j in todo), enabled=progress, postfix={"files": f"0/{len(todo)}"}) as bar:
        def done(job: Job, result: FileReport) -> None:
            if result.error:
                report.invalid.append(result.error)
            else:
                report.files += 1
            report.words += result.words
            report.missing_upos += not result.has_upos
            report.repairs.update(result.repairs)
            bar.update(job.words)
            bar.set_postfix(files=f"{report.files}/{len(todo)}", refresh=False)

        if client is not None:
            from spacy_planar.corpus.dask import PipelineLoader, run_dask

            run_dask(client, functools.partial(run_job, model, options=options), todo,
                     PipelineLoader(model, load_once, unload), done)
        else:
            run_local(model, todo, options, n_process, done)
    report.seconds = time.perf_counter() - start
    remove_leftovers(jobs)
    return report
