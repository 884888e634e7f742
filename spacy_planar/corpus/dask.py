"""Parsing a corpus on a ``dask.distributed`` cluster (``parse-corpus --scheduler``, ``--local-workers``).

Dask is the engine: each job (one input file, its CoNLL-U output; ``corpus.Job``)
is a task that parses the file with the worker's pipeline and writes the output
itself, atomically, to a folder every worker reaches (``corpus.run_job``, which
``corpus.parse_corpus`` hands to ``run_dask``: this module knows nothing of
what a task does). The pipeline is loaded
once per worker, when the worker starts or joins, by a worker plugin
(``PipelineLoader``), not once per task. When a worker is lost, the scheduler
reruns its tasks on the others (up to ``distributed.scheduler.allowed-failures``
times): a lost worker costs only its files, and since an output appears only
when complete, nothing it left half-done is mistaken for a result.

A real cluster: start ``dask scheduler`` on one machine and ``dask worker
tcp://HOST:8786 --nworkers N --nthreads 1`` on each machine (or a SLURM job
array through ``dask-jobqueue``'s ``SLURMCluster``; docs/cluster.md), with
spacy-planar installed and the model and the folders on a shared file system,
then ``spacy-planar parse-corpus MODEL IN OUT --scheduler tcp://HOST:8786``.
"""
from __future__ import annotations

import os
import signal
from typing import Callable, Optional, Sequence

from distributed import Client, LocalCluster, as_completed
from distributed.diagnostics.plugin import WorkerPlugin


class PipelineLoader(WorkerPlugin):
    """Runs ``load(model)`` once per worker, when the worker starts (or
    joins the cluster later), and ``unload(model)`` at its teardown, so
    that every task the worker runs finds the pipeline loaded (``load``
    and ``unload`` are module functions: workers import them by name).
    ``model`` is a path every worker can read or the name of an installed
    pipeline package."""

    name = "spacy-planar-pipeline"

    def __init__(self, model: str, load: Callable[[str], object], unload: Callable[[str], None]):
        self.model, self.load, self.unload = model, load, unload

    def setup(self, worker) -> None:
        self.load(self.model)

    def teardown(self, worker) -> None:
        self.unload(self.model)


def run_dask(client: Client, task: Callable, jobs: Sequence, loader: PipelineLoader,
             done: Callable[[object, object], None]) -> None:
    """Run ``task(job)`` for each of ``jobs`` as tasks on ``client``'s
    cluster, whose workers ``loader`` prepares; ``done(job, result)`` is
    called here as each ends. The first error stops the run (raised here,
    the other tasks cancelled); what finished tasks wrote stays."""
    client.register_plugin(loader, name=loader.name)
    keys = [f"spacy-planar-parse-{i}" for i in range(len(jobs))]
    futures = client.map(task, list(jobs), key=keys, pure=False)
    by_key = {future.key: job for future, job in zip(futures, jobs)}
    try:
        for future in as_completed(futures):
            done(by_key[future.key], future.result())
    except KeyboardInterrupt:  # the cluster is closed next (its workers stop): cancelling would only log
        raise
    except BaseException:
        client.cancel(futures)
        raise


def dask_client(scheduler: Optional[str] = None, local_workers: int = 0) -> Client:
    """A client of the scheduler at ``scheduler``, or of a ``LocalCluster``
    of ``local_workers`` processes with one thread each (``close_client``
    closes it with the client)."""
    if scheduler:
        return Client(scheduler)
    # the worker processes ignore SIGINT (inherited through their start): Ctrl-C reaches this process alone,
    # which stops them as it closes the cluster, instead of each printing its own traceback
    # and neither their task cancellations at shutdown nor a heartbeat that meets the scheduler closed first
    # (a traceback logged at ERROR, seen once in 2026-11-26's CI) is logged; their memory warnings are
    # (their environment is this one's, read at start)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    env = os.environ.get("DASK_LOGGING")
    os.environ["DASK_LOGGING"] = repr({"distributed.worker.state_machine": "error", "distributed.worker": "critical",
                                       "distributed.worker.memory": "warning"})
    try:
        # no dashboard, and the scheduler's HTTP server (health routes) on a free port: Dask's default 8787 may be
        # another cluster's, which would cost a warning on every run
        return Client(LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}))
    finally:
        signal.signal(signal.SIGINT, previous)
        if env is None:
            os.environ.pop("DASK_LOGGING")
        else:
            os.environ["DASK_LOGGING"] = env


def close_client(client: Client) -> None:
    """Close the client, and the LocalCluster it was given (``client.cluster``;
    None for a scheduler's address, whose cluster is not ours to stop)."""
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()


__all__ = ["PipelineLoader", "run_dask", "dask_client", "close_client"]
