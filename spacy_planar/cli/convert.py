"""``convert``: CoNLL-U <-> DocBin."""
from __future__ import annotations

from pathlib import Path

import typer

from spacy_planar.defaults import LANG
from spacy_planar.cli._app import app, fail, flag, msg
from spacy_planar.errors import Errors
from spacy_planar.io.conllu import SkipReport, conllu_to_docbin, conllu_to_paragraphs, docbin_to_conllu, treebank_name
from spacy_planar.io.inputs import plain_name, readable


@app.command()
def convert(
    input_path: Path = typer.Argument(..., help="CoNLL-U, or a DocBin (.spacy)"),
    output_path: Path = typer.Argument(..., help="The other kind: a DocBin (.spacy), or CoNLL-U; or, from "
                                       "CoNLL-U, its text as raw text (.txt) for parse"),
    lang: str = typer.Option(LANG, "--lang", "-l", help="Language of the vocab"),
    n_sents: int = typer.Option(1, "--n-sents", "-n", help="Sentences per Doc (.conllu -> .spacy)"),
    skip_invalid: bool = flag(False, "--skip-invalid", help="Leave out malformed sentences, and say which"),
    treebank: str = typer.Option("", "--treebank", "-t", help="The treebank's name, kept with each Doc (for "
                                 "training on several treebanks); default: from the file's name (la_ittb-ud-"
                                 "train.conllu, la_ittb/train.conllu: la_ittb)"),
    per_line: int = typer.Option(10, "--per-line", help=".txt: sentences a line where the treebank marks no "
                                 "# newpar"),
) -> None:
    """Convert CoNLL-U to a DocBin or back (a .spacy file is a DocBin, any other CoNLL-U).

    CoNLL-U to .txt writes its text as parse reads raw text: a paragraph a
    line (# newpar), a blank line between documents (# newdoc), so that the
    parse of that text can be scored against the treebank."""
    kind = plain_name(input_path).suffix  # a compressed input (.conllu.gz) is read decompressed
    with readable(input_path) as given:
        if output_path.suffix == ".txt" and kind != ".spacy":
            n = conllu_to_paragraphs(given, output_path, per_line)
            msg.good(f"Wrote {output_path}: the text of {n} sentences, a paragraph a line")
            return
        to_docbin = output_path.suffix == ".spacy"
        if to_docbin == (kind == ".spacy"):
            fail(Errors.E030.format(input=input_path, output=output_path))
        if to_docbin:
            report = SkipReport()
            docs, words = conllu_to_docbin(given, output_path, lang, n_sents, skip_invalid, report,
                                           treebank or treebank_name(plain_name(input_path)))
            if report.skipped:
                msg.warn(f"Skipped {len(report)} invalid sentence(s) of {input_path}:")
                for line, reason in report.skipped:
                    print(f"  {input_path}:{line}: {reason}")
        else:
            docs, words = docbin_to_conllu(given, output_path, lang)
    msg.good(f"Wrote {output_path}: {docs} docs, {words} words")
