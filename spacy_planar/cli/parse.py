"""``parse``: CoNLL-U or raw text through a trained pipeline."""
from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer

from spacy_planar.cli._app import app, flag, load_pipeline, msg
from spacy_planar.corpus.files import FileReport, parse_file
from spacy_planar.corpus.jobs import corpus_jobs
from spacy_planar.corpus.pool import CorpusReport, ParseOptions, cluster_client, parse_corpus
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.pipelines import header_line, pipeline_id, pipeline_path
from spacy_planar.parser.ensembles.loading import ensemble_beam
from spacy_planar.model.treebanks import set_treebank
from spacy_planar.parser.shared.repairs import summary
from spacy_planar.defaults import KBEST_BEAM


@app.command()
def parse(
    model: str = typer.Argument(..., help="A trained spaCy pipeline (path or package)"),
    input_path: Path = typer.Argument(..., help="CoNLL-U or a spaCy DocBin (their words are parsed), or raw "
                                      "text, one paragraph or sentence per line; told apart by content ('-': "
                                      "standard input)"),
    output_path: Path = typer.Argument(..., help="CoNLL-U with predicted HEAD and DEPREL ('-': standard "
                                       "output)"),
    sentencizer: bool = flag(False, "--sentencizer", "-s", help="Raw text: split each line into "
                                     "sentences (spaCy's sentencizer) rather than parse it as one"),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", "-b", help="Docs per batch (default: the "
                                             "pipeline's [nlp] batch_size)"),
    validate: bool = flag(False, "--validate", "-V", help="Check the output with the UD validator "
                                  "(level 2); exit 1 if it fails"),
    kbest: int = typer.Option(1, "--kbest", "-k", help="Write each sentence's K most probable parses (the next "
                              "ones as blocks # sent_id = ID/2 ...) with # parse_prob; parses with a beam"),
    confidence: bool = flag(False, "--confidence", "-c", help="Write each word's arc probability as "
                                    "HeadProb=P in MISC; parses with a beam"),
    beam: Optional[int] = typer.Option(None, "--beam", help="Parse with a beam of this width (with --kbest or "
                                       f"--confidence: at least K, default {KBEST_BEAM})"),
    ensemble: List[str] = typer.Option(None, "--ensemble", "-e", help="Another pipeline trained on the same "
                                       "treebank (another seed or parser): parse with both, their taggers' "
                                       "probabilities and parsers' moves (or, of other parsers, trees) averaged "
                                       "(repeat for more)"),
    treebank: str = typer.Option("", "--treebank", "-t", help="A pipeline trained on several treebanks: write "
                                 "in the style of this one (default: the target, the first it was trained on)"),
    keep_input_columns: bool = flag(False, "--keep-input-columns", help="CoNLL-U input: keep the input's "
                                            "UPOS, XPOS, LEMMA, FEATS where the pipeline predicts none, its DEPS, "
                                            "MISC and empty nodes (default: '_', as predicted by nothing; MISC "
                                            "only SpaceAfter=No)"),
) -> None:
    """Parse CoNLL-U or raw text with any pipeline (ours or spaCy's parser).

    CoNLL-U input keeps its words, with HEAD and DEPREL replaced, and UPOS,
    XPOS, LEMMA, FEATS where the pipeline predicts them, the other columns
    '_' and MISC only SpaceAfter=No (--keep-input-columns: the input's); raw text is
    tokenised by the pipeline and written with ``# text`` and
    ``SpaceAfter=No``."""

    with piped(output_path) as written:  # '-': standard input or output, as UDPipe's users pipe text
        run_parse(model, input_path, written, sentencizer, batch_size, validate, kbest, confidence, beam, ensemble,
                  treebank, keep_input_columns, shown="standard output" if str(output_path) == "-" else None)


def run_parse(model: str, input_path: Path, output_path: Path, sentencizer: bool, batch_size: Optional[int],
              validate: bool, kbest: int, confidence: bool, beam: Optional[int], ensemble: List[str], treebank: str,
              keep_input_columns: bool, shown: Optional[str] = None) -> None:
    """What ``parse`` does, on files (``shown``: how the output is named to the user, where it is
    a temporary file standing for standard output)."""
    if output_path.exists() and input_path.exists() and output_path.resolve() == input_path.resolve():
        raise UserError(Errors.E133.format(path=output_path))
    settings = beam_settings(beam, kbest, confidence)
    names = [model, *(ensemble or [])]
    if ensemble and beam is None and settings is None:
        settings = ensemble_beam(names)  # parsers of different kinds: a transition parser's k best parses vote
    # in an ensemble the beam is the transition parsers' (a biaffine member decodes its one tree)
    members = [load_pipeline(name, settings, beam_needed=(kbest > 1 or beam is not None) and not ensemble)
               for name in names]
    if treebank:
        for member in members:
            set_treebank(member, treebank)
    nlp = members[0]
    if kbest > 1 and any(nlp.get_pipe_meta(name).factory == "parse_decider" for name in nlp.pipe_names):
        raise UserError(Errors.E158)
    if ensemble:
        from spacy_planar.parser.ensembles.members import Ensemble

        nlp = Ensemble(nlp, members[1:])
        if kbest > 1 and not nlp.one_system:
            raise UserError(Errors.E158)
    header = header_line(pipeline_id(pipeline_path(model)))
    start = time.perf_counter()
    report = parse_file(nlp, input_path, output_path, sentencizer, batch_size, kbest=kbest,
                        confidence=confidence, keep_input_columns=keep_input_columns, header=header)
    seconds = time.perf_counter() - start
    report_output(model, report, seconds, output_path, validate, shown or str(output_path))


@contextmanager
def piped(output_path: Path):
    """The path to write: ``-`` (standard output) a temporary file, copied to standard output once
    whole, while what parse says (size, speed, repairs) goes to standard error. (``-`` as the
    input, standard input, is read once by ``parse_file``, as any stream: ``io.inputs.readable``.)"""
    import contextlib
    import shutil
    import sys
    import tempfile

    if str(output_path) != "-":
        yield output_path
        return
    with tempfile.TemporaryDirectory(prefix="spacy-planar-") as tmp:
        written = Path(tmp) / "stdout.conllu"
        with contextlib.redirect_stdout(sys.stderr):
            yield written
        with written.open("rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
        sys.stdout.flush()


def beam_settings(beam: Optional[int], kbest: int, confidence: bool) -> Optional[dict]:
    """The parser's settings for ``--beam``, ``--kbest`` and ``--confidence``
    (None: the pipeline's own); a width that cannot hold K parses is E109."""
    width = KBEST_BEAM if beam is None and (kbest > 1 or confidence) else beam
    if kbest < 1 or (width is not None and width < max(kbest, 2 if kbest > 1 or confidence else 1)):
        raise UserError(Errors.E109.format(kbest=kbest, beam=width))
    if kbest > 1 or confidence:
        return {"beam_width": width, "n_best": max(kbest, 2)}
    return None if width is None else {"beam_width": width}


def report_output(model: str, report: FileReport, seconds: float, output_path: Path, validate: bool,
                  shown: str) -> None:
    """What ``parse`` says of its output: its size and speed; a warning
    where it has no UPOS (neither predicted nor the input's); with
    ``validate``, the UD validator's verdict at level 2 (its report and
    exit 1 where it fails)."""
    words = report.words
    msg.good(f"Parsed {report.sentences} sentences, {words} words in {seconds:.1f} s "
             f"({words / max(seconds, 1e-9):,.0f} words/s): {shown}")
    say_repairs(report.repairs)
    if words and not report.has_upos:
        msg.warn(f"{model} predicts no UPOS (no tagger or morphologizer), so the UPOS column is '_', which the UD "
                 "validator rejects (level 2); configs/ud.cfg trains a pipeline whose output is valid UD")
    if validate:
        from spacy_planar.eval.official import validate as ud_validate

        passed, text = ud_validate(output_path, level=2)
        if not passed:
            print(text)
            raise typer.Exit(1)
        msg.good(f"UD validator, level 2: passed ({shown})")


def say_repairs(repaired) -> None:
    """One line: what the parser repaired to keep its output valid (never expected; ``parser/shared/repairs.py``)."""
    lines = summary(repaired)
    if not lines:
        msg.good("Repairs: none (every tree as the parser built it)")
        return
    msg.warn(f"Repairs: {sum(repaired.values())} ({'; '.join(lines)}); see docs/design.md, 'What is repaired'")


@app.command("parse-corpus")
def parse_corpus_command(
    model: str = typer.Argument(..., help="A trained spaCy pipeline (path or package); with --scheduler, a path "
                                "every worker reads (a shared folder) or an installed package"),
    in_dir: Path = typer.Argument(..., help="A folder of raw text (.txt) and CoNLL-U (.conllu) files, also in "
                                  "folders below it; each file's content says how it is read, as in parse"),
    out_dir: Path = typer.Argument(..., help="Where the CoNLL-U outputs go, one per input at the same relative "
                                   "path (suffix .conllu); outputs already there are kept and skipped"),
    sentencizer: bool = flag(False, "--sentencizer", "-s", help="Raw text: split each line into "
                                     "sentences (spaCy's sentencizer) rather than parse it as one"),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", "-b", help="Docs per batch (default: the "
                                             "pipeline's [nlp] batch_size)"),
    n_process: int = typer.Option(1, "--n-process", "-n", help="Processes on this machine, each loading the "
                                  "pipeline once"),
    local_workers: int = typer.Option(0, "--local-workers", "-w", help="Start a Dask LocalCluster of N worker "
                                      "processes and parse on it"),
    scheduler: str = typer.Option("", "--scheduler", help="The address of a running Dask scheduler (tcp://HOST:8786) "
                                  "whose workers parse the files and write the outputs"),
    skip_invalid: bool = flag(False, "--skip-invalid", help="A bad input file is named and skipped (its "
                                      "output not written) instead of stopping the run"),
    overwrite: bool = flag(False, "--overwrite", help="Parse every file again, also those with a complete "
                                   "output (needed where another pipeline wrote them)"),
) -> None:
    """Parse a folder of files into a folder of CoNLL-U: one output per input.

    Each output is written as ``parse`` writes it (byte for byte) and
    atomically, so an output that exists is complete: a second run after an
    interrupted one parses only what is missing. The files are parsed here
    (``--n-process``: by a pool of processes) or on a Dask cluster
    (``--scheduler``, ``--local-workers``), each worker loading the pipeline
    once. Each output's first line names the pipeline that wrote it; a rerun
    with another pipeline refuses to mix them (``--overwrite`` parses all
    again). Ctrl-C stops every mode with one line: how many files are done."""
    for option, value in (("--n-process", n_process), ("--batch-size", 1 if batch_size is None else batch_size)):
        if value < 1:
            raise UserError(Errors.E104.format(option=option, value=value))
    if local_workers < 0:
        raise UserError(Errors.E104.format(option="--local-workers", value=local_workers))
    if sum((n_process > 1, local_workers > 0, bool(scheduler))) > 1:
        raise UserError(Errors.E103)
    jobs = corpus_jobs(in_dir, out_dir)
    model = str(pipeline_path(model).resolve())  # a folder: the workers' processes may start elsewhere
    options = ParseOptions(sentencizer, batch_size, header_line(pipeline_id(model)), skip_invalid)
    report = CorpusReport()
    with quiet_interrupt(report, out_dir), cluster_client(scheduler, local_workers) as client:
        try:
            parse_corpus(model, jobs, options, n_process=n_process, client=client, overwrite=overwrite,
                         report=report)
        except UserError as e:  # a bad input file stopped the run: say how to go on without it
            raise UserError(Errors.E156.format(error=str(e))) from None
    report_corpus(model, report, out_dir)


@contextmanager
def quiet_interrupt(report: CorpusReport, out_dir: Path):
    """Ctrl-C in any mode: one line saying how far the run got, exit 130
    (``cluster_client`` mutes a Dask cluster's shutdown)."""
    try:
        yield
    except KeyboardInterrupt:
        typer.secho(f"\u2718 interrupted: {report.complete()} of {report.todo} files parsed into {out_dir} (each "
                    "output there is complete); run the same command again to parse the rest", fg="red", err=True)
        raise typer.Exit(130) from None


def report_corpus(model: str, report: CorpusReport, out_dir: Path) -> None:
    """What ``parse-corpus`` says at the end: files, words, speed; the bad
    inputs skipped (``--skip-invalid``), one line each; the outputs without UPOS."""
    skipped = f"; {report.skipped} complete outputs kept" if report.skipped else ""
    msg.good(f"Parsed {report.files} files, {report.words} words in {report.seconds:.1f} s "
             f"({report.words / max(report.seconds, 1e-9):,.0f} words/s): {out_dir}{skipped}")
    say_repairs(report.repairs)
    if report.missing_upos:
        msg.warn(f"{report.missing_upos} outputs have no UPOS: {model} predicts none (no tagger or morphologizer), "
                 "which the UD validator rejects (level 2)")
    if report.invalid:
        msg.warn(f"{len(report.invalid)} input files skipped (--skip-invalid), no output written for them:")
        for line in report.invalid:
            print(f"  {line}")
