"""A corpus's jobs: one CoNLL-U output per input file, and what is already done.

The unit of work is a *job*: one input file (raw text or CoNLL-U, told apart by
content) and the CoNLL-U file it becomes. Every way of running jobs (in this
process, a process pool, the workers of a ``dask.distributed`` cluster) runs
the same ``parse_file``, which the ``parse`` command runs too, so an output is
byte-identical whoever wrote it. Each output is written atomically (under a
temporary name, moved into place when complete), so an output that exists is
complete: a second run skips it and parses only what is missing, and a worker
lost mid-file leaves nothing under the output's name (Dask reruns its job
elsewhere).

This follows spaCy's advice for corpora beyond one machine (spaCy issues
#5111, #4652): shard the input into files, send ``input -> output`` jobs to an
existing engine, load the pipeline once per worker (``PipelineLoader``, a Dask
worker plugin; a pool's initializer on one machine). No engine of our own.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List

from spacy_planar.corpus.files import count_words
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import check_input
from spacy_planar.io.inputs import plain_name

# the suffixes parse-corpus reads, also compressed (.txt.gz, .conllu.xz, .txt.bz2); the content decides how
# (a .txt holding CoNLL-U is read as CoNLL-U)
CORPUS_SUFFIXES = (".txt", ".conllu")


@dataclass(frozen=True)
class Job:
    """One input file and the CoNLL-U it becomes; ``words`` is an estimate
    for the progress bar (word lines of CoNLL-U, whitespace tokens of text)."""
    input: str
    output: str
    words: int = 0


def corpus_jobs(in_dir: Path, out_dir: Path) -> List[Job]:
    """One job per ``.txt`` and ``.conllu`` file in ``in_dir`` and below it, compressed
    or not (sorted by path), each written to the same relative path under
    ``out_dir`` with the suffix ``.conllu`` (``a.txt.gz`` -> ``a.conllu``). One-line errors where
    ``in_dir`` is no folder, holds no such file, two inputs would share an
    output, or ``out_dir`` is inside ``in_dir``."""
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if not in_dir.is_dir():
        check_input(in_dir)  # missing: E031
        raise NotADirectoryError(Errors.E100.format(path=in_dir))
    inside = out_dir.resolve()
    if inside == in_dir.resolve() or in_dir.resolve() in inside.parents:
        raise UserError(Errors.E102.format(out_dir=out_dir, in_dir=in_dir))
    inputs = sorted(p for p in in_dir.rglob("*") if plain_name(p).suffix in CORPUS_SUFFIXES and p.is_file()
                    and not p.name.startswith("."))
    if not inputs:
        raise UserError(Errors.E105.format(in_dir=in_dir))
    jobs: List[Job] = []
    seen: Dict[Path, Path] = {}
    for path in inputs:
        out = out_dir / plain_name(path.relative_to(in_dir)).with_suffix(".conllu")
        if out in seen:
            raise UserError(Errors.E101.format(first=seen[out], second=path, output=out))
        seen[out] = path
        jobs.append(Job(str(path), str(out), count_words(path)))
    return jobs


def is_complete(job: Job) -> bool:
    """Whether a job's output is there to keep: it exists (outputs are
    written atomically, so a run stopped mid-file leaves only a hidden
    temporary file, which ``remove_leftovers`` clears), ends as CoNLL-U ends
    (a blank line: not cut short by another tool) and is not older than its
    input (an input edited since is parsed again)."""
    try:
        out = os.stat(job.output)
        if out.st_mtime < os.stat(job.input).st_mtime or out.st_size < 2:
            return False
        with open(job.output, "rb") as f:
            f.seek(-2, os.SEEK_END)
            return f.read() == b"\n\n"
    except FileNotFoundError:
        return False


def written_by(job: Job) -> str:
    """The first line of a job's output (``# pipeline = ...`` where
    spacy-planar wrote it)."""
    with open(job.output, "rb") as f:
        return f.readline().decode("utf-8", "replace")


def remove_leftovers(jobs: Iterable[Job]) -> int:
    """Remove the temporary files that runs stopped mid-file left beside
    these jobs' outputs (``atomic_output``'s ``.NAME.*.tmp``)."""
    n = 0
    for job in jobs:
        out = Path(job.output)
        if out.parent.is_dir():
            for tmp in out.parent.glob(f".{out.name}.*.tmp"):
                tmp.unlink(missing_ok=True)
                n += 1
    return n
