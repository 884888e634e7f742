"""Parsing files and corpora: one CoNLL-U output per input, on one machine or a Dask cluster.

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

import functools
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.io.conllu import (HEAD_PROBS_KEY, PARSES_KEY, USER_DATA_KEY, Sentence, atomic_output, check_input,
                        doc_to_conllu, docs_to_conllu, file_kind, read_conllu, read_docbin, read_utf8,
                        sentences_to_doc)
from spacy_planar.defaults import BATCH_SIZE
from spacy_planar.io.doc_trees import set_trees, ud_tree
from spacy_planar.errors import ConlluError, Errors, UserError
from spacy_planar.io.progress import progress_bar
from spacy_planar.io.readers import WORDS_GIVEN

# the suffixes parse-corpus reads (the content decides how: a .txt holding CoNLL-U is read as CoNLL-U)
CORPUS_SUFFIXES = (".txt", ".conllu")
# the columns a pipeline may predict: spaCy's annotation, the Token attribute that holds it
PREDICTED_COLUMNS = {"POS": "pos_", "TAG": "tag_", "LEMMA": "lemma_", "MORPH": "morph"}


@dataclass
class FileReport:
    """What parsing one file gave: its size, and whether its output has UPOS;
    ``error``: the one-line reason a bad input was skipped (``--skip-invalid``)."""
    path: str
    words: int
    sentences: int
    has_upos: bool
    error: str = ""


# --- one file ------------------------------------------------------------------------

def input_docs(nlp, sents: List[Sentence]) -> List:
    """Docs of the gold words only (no gold annotation), for a pipeline to
    parse: ``words_doc`` of each sentence."""
    out = []
    for s in sents:
        spaces = list(s.space_after)
        for first, last, _ in s.ranges:
            for i in range(first, last):
                spaces[i] = True
        out.append(words_doc(nlp.vocab, s.forms, spaces))
    return out


def words_doc(vocab, words: List[str], spaces: List[bool], sent_starts: Optional[List[bool]] = None):
    """A Doc of given words (one sentence, or ``sent_starts``' sentences),
    marked as words (``readers.WORDS_GIVEN``: the multiword_tokens component
    leaves them as they are); ``given_sentences`` runs a pipeline over such
    Docs."""
    from spacy.tokens import Doc

    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=sent_starts)
    doc.user_data[WORDS_GIVEN] = True
    return doc


def sentence_starts(doc) -> Optional[List[bool]]:
    """A Doc's sentence starts where it has sentences (a DocBin's Doc of several), else None."""
    if len(doc) and (doc.has_annotation("SENT_START") or doc.has_annotation("DEP")):
        starts = [bool(t.is_sent_start) for t in doc]
        return starts if sum(starts) > 1 else None
    return None


SENTENCE_SPLITTERS = ("senter", "sentencizer")  # factories that set sentences


def given_sentences(nlp, docs: Iterable, batch_size: int = BATCH_SIZE, disable: Sequence[str] = ()) -> Iterator:
    """``nlp.pipe`` over Docs that are one sentence each (a treebank's):
    the pipeline's sentence splitters are not run on them."""
    splitters = [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory in SENTENCE_SPLITTERS]
    return nlp.pipe(docs, batch_size=batch_size, disable=[*splitters, *disable])


def parsed_conllu(nlp, pairs: Iterable[Tuple[Sentence, object]], kbest: int = 1, confidence: bool = False,
                  keep_input_columns: bool = False) -> Iterator[str]:
    """The CoNLL-U text of each (input sentence, parsed Doc): the input's
    words (and multiword tokens, comments) with HEAD and DEPREL from the
    Doc, and UPOS, XPOS, LEMMA, FEATS from it where the pipeline predicts
    the column; the columns it does not predict are ``_``, DEPS too, MISC
    holds only SpaceAfter=No (from the words' spacing), and empty nodes are
    left out (an enhanced graph the pipeline did not predict), unless
    ``keep_input_columns``: then they are the input's.
    ``kbest``, ``confidence``: as ``conllu_io.doc_to_conllu``."""
    for sent, doc in pairs:
        heads, labels = ud_tree(doc)
        out = sentences_to_doc(nlp.vocab, [sent])
        stored = out.user_data[USER_DATA_KEY]["sents"][0]
        set_trees([out], np.asarray(heads, dtype=np.int64), labels, [len(heads)])
        for annotation, attr in PREDICTED_COLUMNS.items():
            predicted = doc.has_annotation(annotation)
            if predicted or not keep_input_columns:
                for mine, theirs in zip(out, doc):
                    if annotation == "MORPH":
                        mine.set_morph(str(theirs.morph) if predicted else None)
                    else:  # the Token attribute PREDICTED_COLUMNS names
                        setattr(mine, attr, getattr(theirs, attr) if predicted else "")
                if annotation == "MORPH":  # the input's FEATS as written give way too
                    stored.pop("feats", None)
        if not keep_input_columns:  # and MISC as predicted: SpaceAfter from the words' spacing only
            stored["deps"] = ["_"] * len(sent)
            stored["empty"] = []
            stored["misc"] = ["_"] * len(sent)
            stored["ranges"] = [(first, last, list(cols[:9]) + ["_"]) for first, last, cols in stored["ranges"]]
        for key in (PARSES_KEY, HEAD_PROBS_KEY):
            if key in doc.user_data:
                out.user_data[key] = doc.user_data[key]
        yield doc_to_conllu(out, kbest=kbest, confidence=confidence)


def read_text(path: Path) -> List[str]:
    """The non-blank lines of a UTF-8 text file (a byte order mark is read)."""
    check_input(path)
    lines = [line.strip() for line in read_utf8(path).splitlines()]
    texts = [line for line in lines if line]
    if not texts:
        raise ConlluError(str(path), 1, Errors.E016)
    return texts


# sentences (CoNLL-U) read, parsed and written at a time: a file's memory is a chunk's, not the file's
CHUNK = 2000


def parse_file(nlp, input_path: Path, output_path: Path, sentencizer: bool = False, batch_size: int = BATCH_SIZE,
               progress: bool = True, kbest: int = 1, confidence: bool = False,
               keep_input_columns: bool = False, header: str = "") -> FileReport:
    """Parse one file with ``nlp`` and write its CoNLL-U atomically, as it
    goes (the memory of a chunk of ``CHUNK`` sentences, not of the file),
    with a progress bar in words on a terminal (``progress``).

    CoNLL-U input keeps its words, with HEAD and DEPREL replaced, and UPOS,
    XPOS, LEMMA, FEATS where the pipeline predicts them (the rest ``_``,
    unless ``keep_input_columns``: ``parsed_conllu``); a DocBin's words are
    parsed; raw text (one paragraph or sentence per line) is tokenised by the
    pipeline, each line one Doc (``sentencizer``: split into sentences by
    spaCy's sentencizer, else parsed as one) and written with ``# text`` and
    ``SpaceAfter=No``. ``kbest`` > 1: each sentence's next best parses
    after it; ``confidence``: each word's arc probability in MISC (both
    where the pipeline's parser keeps them: ``n_best``); ``header``: the
    output's first comment lines (``pipelines.header_line``). Bad input raises a
    one-line ``UserError`` and leaves no output."""
    input_path, output_path = Path(input_path), Path(output_path)
    kind = file_kind(input_path)
    report = FileReport(str(input_path), 0, 0, False)
    input_upos = False

    def counted(docs: Iterable) -> Iterator:
        for doc in docs:
            report.words += len(doc)
            report.sentences += sum(1 for _ in doc.sents)
            report.has_upos = report.has_upos or doc.has_annotation("POS")
            bar.update(len(doc))
            yield doc

    # raw text's words are known once tokenised: no total
    with atomic_output(output_path) as f, progress_bar(total=count_words(input_path) if kind == "conllu" else None,
                                                       enabled=progress, leave=False) as bar:
        f.write(header)
        if kind == "conllu":
            for chunk in chunked(read_conllu(input_path, words_only=True), CHUNK):
                input_upos = input_upos or any(u not in ("_", "") for s in chunk for u in s.upos)
                parsed = counted(given_sentences(nlp, input_docs(nlp, chunk), batch_size))
                for text in parsed_conllu(nlp, zip(chunk, parsed), kbest, confidence, keep_input_columns):
                    f.write(text)
        else:
            if kind == "docbin":  # its words and sentences
                parsed = given_sentences(nlp, (words_doc(nlp.vocab, [t.text for t in d],
                                                         [bool(t.whitespace_) for t in d],
                                                         sentence_starts(d)) for d in read_docbin(input_path)),
                                         batch_size)
            else:
                parsed = nlp.pipe(text_inputs(nlp, input_path, sentencizer), batch_size=batch_size)
            for text in docs_to_conllu(counted(parsed), kbest, confidence):
                f.write(text)
    report.has_upos = report.has_upos or (keep_input_columns and input_upos)
    return report


def text_inputs(nlp, path: Path, sentencizer: bool) -> Iterable:
    """A text file's lines as ``nlp.pipe`` inputs; with ``sentencizer``,
    Docs split into sentences by spaCy's sentencizer, run before the
    pipeline, which stays as it was given (unless it has one)."""
    texts = read_text(path)
    if not sentencizer or "sentencizer" in nlp.pipe_names:
        return texts
    from spacy.pipeline import Sentencizer

    split = Sentencizer()
    return (split(nlp.make_doc(text)) for text in texts)


def chunked(items: Iterable, size: int) -> Iterator[List]:
    """``items`` in lists of ``size`` (the last shorter)."""
    chunk: List = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


# --- a corpus: its jobs ----------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    """One input file and the CoNLL-U it becomes; ``words`` is an estimate
    for the progress bar (word lines of CoNLL-U, whitespace tokens of text)."""
    input: str
    output: str
    words: int = 0


def corpus_jobs(in_dir: Path, out_dir: Path) -> List[Job]:
    """One job per ``.txt`` and ``.conllu`` file in ``in_dir`` and below it
    (sorted by path), each written to the same relative path under
    ``out_dir`` with the suffix ``.conllu``. One-line errors where
    ``in_dir`` is no folder, holds no such file, two inputs would share an
    output, or ``out_dir`` is inside ``in_dir``."""
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if not in_dir.is_dir():
        check_input(in_dir)  # missing: E031
        raise NotADirectoryError(Errors.E100.format(path=in_dir))
    inside = out_dir.resolve()
    if inside == in_dir.resolve() or in_dir.resolve() in inside.parents:
        raise UserError(Errors.E102.format(out_dir=out_dir, in_dir=in_dir))
    inputs = sorted(p for p in in_dir.rglob("*") if p.suffix in CORPUS_SUFFIXES and p.is_file()
                    and not p.name.startswith("."))
    if not inputs:
        raise UserError(Errors.E105.format(in_dir=in_dir))
    jobs: List[Job] = []
    seen: Dict[Path, Path] = {}
    for path in inputs:
        out = out_dir / path.relative_to(in_dir).with_suffix(".conllu")
        if out in seen:
            raise UserError(Errors.E101.format(first=seen[out], second=path, output=out))
        seen[out] = path
        jobs.append(Job(str(path), str(out), count_words(path)))
    return jobs


def count_words(path: Path) -> int:
    """About the words of a file, for a progress bar: the word lines of
    CoNLL-U, the whitespace-separated tokens of anything else."""
    n = 0
    with open(path, "rb") as f:
        head = f.read(1 << 16)
        f.seek(0)
        conllu = b"\t" in head
        for line in f:
            if conllu:
                n += line[:1].isdigit() and b"\t" in line and line.split(b"\t", 1)[0].isdigit()
            else:
                n += len(line.split())
    return n


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


# --- running jobs ----------------------------------------------------------------------

@dataclass(frozen=True)
class ParseOptions:
    """How every job is parsed (the ``parse`` command's options); ``header``:
    each output's first line (the pipeline that wrote it); ``skip_invalid``:
    a bad input is reported and skipped instead of stopping the run."""
    sentencizer: bool = False
    batch_size: int = BATCH_SIZE
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
    """A Dask client for ``parse_corpus`` (``cluster.dask_client``: the
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
