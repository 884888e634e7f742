"""``charlm``: a character language model of a language's own text (Stanza's).

The text is read as ``vectors`` reads it (``raw_text.Corpus``: plain or
compressed text, CoNLL-U, folders; NFC, the language's tokenizer, held-out
text left out), its lines joined by spaces into one stream; ``--max-chars``
of it (whole lines, drawn evenly from the whole corpus) train a forward and
a backward LSTM once over, side by side on two cores (``model/charlm.py``).
Every shipped config reads the model with ``--paths.charlm DIR``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import List

import numpy
import typer

from ..errors import Errors, UserError
from ._app import USER_ERRORS, app, fail, flag, msg
from .vectors import _check_sizes, read_corpus

DEFAULTS = {"hidden": 256, "width": 64, "max_chars": 12_000_000, "min_count": 10, "learn_rate": 0.01}


def sample_lines(text: Path, max_chars: int, seed: int) -> str:
    """The lines of ``text`` joined by spaces: all of them, or whole lines
    drawn at random (in their order) to about ``max_chars`` characters."""
    lines = text.read_text(encoding="utf-8").splitlines()
    total = sum(len(line) + 1 for line in lines)
    if total > max_chars:
        keep = numpy.random.RandomState(seed).random_sample(len(lines)) < max_chars / total
        lines = [line for line, k in zip(lines, keep) if k]
    return " ".join(lines) + " "


# Over 60 lines: a typer command, its ten options in its signature.
@app.command()
def charlm(
    output_dir: Path = typer.Argument(..., help="Directory for the model: --paths.charlm"),
    sources: List[Path] = typer.Argument(..., help="Text: plain, .xz, .gz or .bz2 files, CoNLL-U files (their "
                                         "word forms), folders of them"),
    lang: str = typer.Option("xx", "--lang", "-l", help="Language: its tokenizer splits the text"),
    exclude: List[Path] = typer.Option([], "--exclude", "-x", help="Held-out text (a treebank's dev and test "
                                       "CoNLL-U): lines sharing a run of 5 words with it are left out; repeatable"),
    max_chars: int = typer.Option(DEFAULTS["max_chars"], "--max-chars", help="Characters to train on, drawn "
                                  "evenly from the text (about 12 minutes a direction per 12 million on one core)"),
    hidden: int = typer.Option(DEFAULTS["hidden"], "--hidden", help="LSTM units each way (the features' width: "
                               "twice this)"),
    width: int = typer.Option(DEFAULTS["width"], "--width", help="Character embedding width"),
    min_count: int = typer.Option(DEFAULTS["min_count"], "--min-count",
                                  help="Characters seen fewer times share one 'unknown' row"),
    learn_rate: float = typer.Option(DEFAULTS["learn_rate"], "--learn-rate", help="Adam's learning rate"),
    seed: int = typer.Option(0, "--seed", help="Random seed (the lines drawn, the weights, the order)"),
    threads: int = typer.Option(min(os.cpu_count() or 1, 2), "--threads",
                                help="2: the two directions side by side (one core each); 1: one after the other"),
    overwrite: bool = flag(False, "--overwrite", help="Replace OUTPUT_DIR if it exists (once the new model "
                                   "is written)"),
) -> None:
    """Train a character language model (forward and backward LSTMs) on a language's own text.

    Each word's features are the forward model's state after its last
    character and the backward model's after its first (Stanza's parser
    reads them). Train any shipped config with them: `--paths.charlm
    OUTPUT_DIR`. The bits per character on the text's last 1% (not trained
    on) are printed and kept in OUTPUT_DIR/meta.json.
    \f(Over 60 lines: typer's options in the signature; the body is under 60.)"""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from ..model.charlm import train_char_lm

    if output_dir.exists() and not overwrite:
        fail(Errors.E033.format(path=output_dir))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            _check_sizes(**{"max-chars": max_chars, "hidden": hidden, "width": width, "threads": threads,
                            "min-count": min_count})
            corpus = read_corpus(sources, lang, exclude, Path(tmp) / "text.txt")
            if corpus.words == 0:
                raise UserError(Errors.E034.format(sources=", ".join(map(str, sources))))
        except USER_ERRORS as e:
            fail(str(e))
        text = sample_lines(Path(tmp) / "text.txt", max_chars, seed)
        msg.info(f"{corpus.words:,} words in {corpus.lines:,} lines from {len(corpus.files)} file(s)"
                 + (f"; {corpus.excluded_lines:,} lines left out as held-out text" if exclude else "")
                 + f"; training on {len(text):,} characters, each direction")
        if threads > 1:
            with ProcessPoolExecutor(2, mp_context=get_context("spawn"), initializer=_one_thread) as pool:
                lm = train_char_lm(text, hidden, width, min_count, learn_rate, seed, pool=pool)
        else:
            lm = train_char_lm(text, hidden, width, min_count, learn_rate, seed)
        lm.meta.update({"lang": lang, "words": corpus.words, "lines": corpus.lines,
                        "files": [str(p) for p in corpus.files], "exclude": [str(p) for p in exclude],
                        "excluded_lines": corpus.excluded_lines, "normalization": "NFC", "case": "kept"})
        lm.to_disk(Path(tmp) / "charlm")
        if output_dir.exists():
            shutil.rmtree(output_dir) if output_dir.is_dir() else output_dir.unlink()
        shutil.move(str(Path(tmp) / "charlm"), str(output_dir))
    bits = lm.meta["bits_per_char"]
    msg.good(f"Wrote {output_dir}: {hidden} units each way, {len(lm.chars)} characters; bits per character on "
             f"held-out text: forward {bits['forward']}, backward {bits['backward']} ({lm.meta['seconds']} s)")
    print(f"Train with: --paths.charlm {output_dir}")


def _one_thread() -> None:
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
