"""``vectors``: floret vectors for a language from its own text, the spaCy way.

floret (fastText with subword hashing into a fixed table, spaCy's vectors for
rich morphology) is trained on a corpus as a user has it (``raw_text.Corpus``:
plain or compressed text, CoNLL-U, folders of them; NFC, the pipeline's
tokenizer, held-out text left out), then converted as ``spacy init vectors
--mode floret`` does. Every shipped config reads them with ``--paths.vectors
DIR`` (``spacy-planar.CharEmbed.v3``). Nothing is downloaded: the text is
the user's.

The defaults are the settings the first measurement used (issue 48), on
dev with la_ittb and grc_proiel, three seeds: no other setting was finished
on dev (docs/decisions.md, 2026-11-26).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

import typer

from spacy_planar.defaults import LANG
from spacy_planar.cli._app import app, fail, flag, msg
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.raw_text import Corpus

DEFAULTS = {"model": "cbow", "dim": 100, "epochs": 5, "bucket": 200000, "min_count": 3, "minn": 3, "maxn": 5}


def train_floret(text: Path, out: Path, model: str, dim: int, epochs: int, minn: int, maxn: int, bucket: int,
                 min_count: int, threads: int, verbose: int = 0) -> None:
    """floret's vectors of ``text`` (``model``: cbow or skipgram; two hashes
    per subword into ``bucket`` rows, as spaCy's floret pipelines use),
    saved in floret's text format at ``out``."""
    try:
        import floret
    except ImportError:
        raise UserError(Errors.E035) from None
    if model not in ("cbow", "skipgram"):
        raise UserError(Errors.E036.format(model=model))
    trained = floret.train_unsupervised(str(text), model=model, mode="floret", hashCount=2, bucket=bucket,
                                        minn=minn, maxn=maxn, dim=dim, epoch=epochs, minCount=min_count,
                                        thread=threads, verbose=verbose)
    trained.save_floret_vectors(str(out))


# floret's cbow (100 dimensions) on this project's machines: 16.2 million words, 5 epochs, 13 CPU-minutes
WORDS_PER_CPU_MINUTE = 6_200_000


def estimated_minutes(words: int, epochs: int, threads: int) -> int:
    """About how long floret trains: from ``WORDS_PER_CPU_MINUTE`` (at least 1)."""
    return max(1, round(words * epochs / WORDS_PER_CPU_MINUTE / max(threads, 1)))


def _check_sizes(**values: int) -> None:
    for option, value in values.items():
        least = 0 if option == "min-count" else 1
        if value < least:
            raise UserError(Errors.E112.format(option=option, least=least, value=value))


def read_corpus(sources: List[Path], lang: str, exclude: List[Path], out: Path) -> Corpus:
    """Writes ``sources``' text as floret reads it to ``out`` (a progress
    line on a terminal); returns the corpus with its counts."""
    import spacy

    from spacy_planar.io.progress import progress_bar

    with progress_bar(desc="Reading the text") as bar:
        corpus = Corpus(sources, spacy.blank(lang).tokenizer, exclude, progress=bar.update)
        corpus.write(out)
    return corpus


@app.command()
def vectors(
    output_dir: Path = typer.Argument(..., help="Directory for the vectors (a blank pipeline): --paths.vectors"),
    sources: List[Path] = typer.Argument(..., help="Text: plain, .xz, .gz or .bz2 files, CoNLL-U files (their "
                                         "word forms), folders of them"),
    lang: str = typer.Option(LANG, "--lang", "-l", help="Language: its tokenizer splits the text, and the vectors' "
                             "pipeline has it"),
    exclude: List[Path] = typer.Option([], "--exclude", "-x", help="Held-out text (a treebank's dev and test "
                                       "CoNLL-U): lines sharing a run of 5 words with it are left out; repeatable"),
    model: str = typer.Option(DEFAULTS["model"], "--model", help="cbow or skipgram"),
    dim: int = typer.Option(DEFAULTS["dim"], "--dim", help="Vector width"),
    epochs: int = typer.Option(DEFAULTS["epochs"], "--epochs", help="Passes over the text (a corpus of millions "
                               "of words: 5; a treebank's own text, some 30,000 words: 30-50)"),
    minn: int = typer.Option(DEFAULTS["minn"], "--minn", help="Shortest character n-gram"),
    maxn: int = typer.Option(DEFAULTS["maxn"], "--maxn", help="Longest character n-gram"),
    bucket: int = typer.Option(DEFAULTS["bucket"], "--bucket", help="Rows of the hashed table (the vectors' size)"),
    min_count: int = typer.Option(DEFAULTS["min_count"], "--min-count",
                                  help="Words seen fewer times get no vector of their own (their n-grams' only)"),
    threads: int = typer.Option(os.cpu_count() or 1, "--threads",
                                help="floret's threads (default: every core; 1 gives the same vectors on every run)"),
    overwrite: bool = flag(False, "--overwrite", help="Replace OUTPUT_DIR if it exists (once the new "
                                   "vectors are written)"),
) -> None:
    """Train floret vectors on a language's own text and store them for spaCy.

    The text is read as the parser sees words: Unicode NFC, split by the
    language's tokenizer, case kept; lines holding held-out text
    (--exclude) are left out. floret's vectors (subword-hashed, so unseen
    inflected forms get one) are stored as `spacy init vectors --mode floret`
    does. Train any shipped config with them: `--paths.vectors OUTPUT_DIR`."""
    if output_dir.exists() and not overwrite:
        fail(Errors.E033.format(path=output_dir))
    with tempfile.TemporaryDirectory() as tmp:
        text = Path(tmp) / "text.txt"
        _check_sizes(dim=dim, epochs=epochs, minn=minn, maxn=maxn, bucket=bucket, threads=threads,
                     **{"min-count": min_count})
        corpus = read_corpus(sources, lang, exclude, text)
        if corpus.words == 0:
            raise UserError(Errors.E034.format(sources=", ".join(map(str, sources))))
        msg.info(f"{corpus.words:,} words in {corpus.lines:,} lines from {len(corpus.files)} file(s)"
                 + (f"; {corpus.excluded_lines:,} lines ({corpus.excluded_words:,} words) left out as held-out "
                    "text" if exclude else ""))
        minutes = estimated_minutes(corpus.words, epochs, threads)
        msg.info(f"Training floret ({model}, {epochs} epochs, {threads} thread(s)): about "
                 f"{minutes} minute{'' if minutes == 1 else 's'} "
                 f"({WORDS_PER_CPU_MINUTE:,} words an epoch per CPU-minute here)")
        train_floret(text, Path(tmp) / "vectors.floret", model, dim, epochs, minn, maxn, bucket, min_count,
                     threads, verbose=2 if sys.stderr.isatty() else 0)
        settings = {"model": model, "dim": dim, "epochs": epochs, "minn": minn, "maxn": maxn, "bucket": bucket,
                    "min_count": min_count, "hash_count": 2}
        store_vectors(Path(tmp) / "vectors.floret", lang, corpus, exclude, settings, Path(tmp) / "pipeline")
        if output_dir.exists():
            shutil.rmtree(output_dir) if output_dir.is_dir() else output_dir.unlink()
        shutil.move(str(Path(tmp) / "pipeline"), str(output_dir))
    msg.good(f"Wrote {output_dir}: floret vectors ({bucket} x {dim}) from {corpus.words:,} words")
    print(f"Train with: --paths.vectors {output_dir}")


def store_vectors(floret_file: Path, lang: str, corpus, exclude: List[Path], settings: Dict, out: Path) -> None:
    """floret's vectors stored as ``spacy init vectors --mode floret`` does, in a blank pipeline
    of ``lang`` at ``out``, its meta saying what they were trained on and how."""
    import spacy
    from spacy.training.initialize import convert_vectors

    nlp = spacy.blank(lang)
    convert_vectors(nlp, floret_file, truncate=0, prune=-1, mode="floret")
    nlp.meta["spacy_planar_vectors"] = {
        "words": corpus.words, "lines": corpus.lines, "files": [str(p) for p in corpus.files],
        "excluded_lines": corpus.excluded_lines, "excluded_words": corpus.excluded_words,
        "exclude": [str(p) for p in exclude], "normalization": "NFC", "case": "kept", "floret": settings}
    nlp.to_disk(out)
