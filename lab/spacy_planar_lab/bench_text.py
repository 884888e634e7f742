"""``spacy-planar lab bench text``: raw text read as ``vectors`` reads it, against spaCy's tokenizer alone."""
from __future__ import annotations

from pathlib import Path
from typing import List

import typer

from spacy_planar.cli._app import flag
from spacy_planar_lab._app import bench_app
from spacy_planar.defaults import LANG
from spacy_planar_lab.bench import report, timed


@bench_app.command("text")
def bench_text(
    sources: List[Path] = typer.Argument(..., help="Raw text as `vectors` reads it: files (plain, .xz, .gz, "
                                         ".bz2), folders of them"),
    lang: str = typer.Option(LANG, "--lang", "-l", help="The language whose tokenizer splits it"),
    exclude: List[Path] = typer.Option([], "--exclude", "-x", help="Held-out CoNLL-U, as for `vectors`"),
    repeats: int = typer.Option(3, "--repeats", "-r"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Reading raw text as `vectors` reads it before floret (decompressed,
    NFC, the held-out lines left out, split by the language's tokenizer), in
    words/s; beside it spaCy's tokenizer alone over the same lines."""
    import spacy

    from spacy_planar.io.raw_text import Corpus

    tokenizer = spacy.blank(lang).tokenizer
    lines: List[str] = []

    def read() -> int:
        corpus = Corpus(sources, tokenizer, exclude)
        lines[:] = list(corpus)
        return corpus.words

    def spacys() -> int:
        return sum(sum(not t.is_space for t in doc) for doc in spacy.blank(lang).tokenizer.pipe(lines))

    rows = {"vectors' reading": timed(read, repeats)}
    rows["spaCy's tokenizer alone"] = timed(spacys, 1)
    report(rows, as_json, f"raw text ({lang}) {', '.join(map(str, sources))}", baseline="spaCy's tokenizer alone")
