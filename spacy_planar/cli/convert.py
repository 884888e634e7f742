"""``convert`` and ``roundtrip-check``: CoNLL-U <-> DocBin."""
from __future__ import annotations

from pathlib import Path
from typing import List

import typer

from ..conllu_io import SkipReport, conllu_to_docbin, docbin_to_conllu, roundtrip_diffs
from ..errors import Errors
from ._app import USER_ERRORS, app, fail, flag, msg


@app.command()
def convert(
    input_path: Path = typer.Argument(..., help="CoNLL-U, or a DocBin (.spacy)"),
    output_path: Path = typer.Argument(..., help="The other kind: a DocBin (.spacy), or CoNLL-U"),
    lang: str = typer.Option("xx", "--lang", "-l", help="Language of the vocab"),
    n_sents: int = typer.Option(1, "--n-sents", "-n", help="Sentences per Doc (.conllu -> .spacy)"),
    skip_invalid: bool = flag(False, "--skip-invalid", help="Leave out malformed sentences, and say which"),
    treebank: str = typer.Option("", "--treebank", "-t", help="The treebank's name, kept with each Doc (for "
                                 "training on several treebanks); default: from the file's name (la_ittb-ud-"
                                 "train.conllu, la_ittb/train.conllu: la_ittb)"),
) -> None:
    """Convert CoNLL-U to a DocBin or back (a .spacy file is a DocBin, any other CoNLL-U)."""
    to_docbin = output_path.suffix == ".spacy"
    if to_docbin == (input_path.suffix == ".spacy"):
        fail(Errors.E030.format(input=input_path, output=output_path))
    try:
        if to_docbin:
            report = SkipReport()
            docs, words = conllu_to_docbin(input_path, output_path, lang, n_sents, skip_invalid, report,
                                           treebank or None)
            if report.skipped:
                msg.warn(f"Skipped {len(report)} invalid sentence(s) of {input_path}:")
                for line, reason in report.skipped:
                    print(f"  {input_path}:{line}: {reason}")
        else:
            docs, words = docbin_to_conllu(input_path, output_path, lang)
    except USER_ERRORS as e:
        fail(str(e))
    msg.good(f"Wrote {output_path}: {docs} docs, {words} words")


@app.command("roundtrip-check")
def roundtrip_check(
    files: List[Path] = typer.Argument(..., help="CoNLL-U files"),
    lang: str = typer.Option("xx", "--lang", "-l"),
) -> None:
    """Check that CoNLL-U -> DocBin -> CoNLL-U gives every sentence back.

    Check that CoNLL-U -> .spacy -> CoNLL-U keeps every sentence: ID to
    DEPREL, SpaceAfter, range lines and comments (exit 1 on a difference)."""
    bad = False
    for path in files:
        try:
            n, diffs = roundtrip_diffs(path, lang)
        except USER_ERRORS as e:
            fail(str(e))
        if diffs:
            bad = True
            msg.fail(f"{path}: {len(diffs)} line(s) differ (first shown)")
            for line, want, got in diffs:
                print(f"  {path}:{line}\n    expected: {want}\n    got:      {got}")
        else:
            msg.good(f"{path}: {n} sentences come back unchanged")
    if bad:
        raise typer.Exit(1)


