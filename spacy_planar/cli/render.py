"""``render``: a tree drawn with its planes (``spacy_planar.eval.render``)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from spacy_planar.defaults import LANG
from spacy_planar.cli._app import app, fail, flag, load_pipeline, msg
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import (
    HEAD_PROBS_KEY,
    atomic_output,
    check_input,
    file_kind,
    head_prob,
    read_conllu,
    sentences_to_doc,
)
from spacy_planar.io.pipelines import pipeline_path
from spacy_planar.eval.render import html_page, sentence_svgs, stacked_svg
from spacy_planar.defaults import KBEST_BEAM


def head_probs(misc: List[str]) -> Optional[List[Optional[float]]]:
    """The ``HeadProb`` of each word of a sentence (``parse --confidence``),
    None where it has none; None where no word has one."""
    found = [head_prob(m) for m in misc]
    return found if any(p is not None for p in found) else None


def parsed_docs(source: str, text: Optional[str], sentence: Optional[int], confidence: bool = False) -> List:
    """The Docs to draw: the sentences of a CoNLL-U file (or its ``sentence``-th;
    with the ``HeadProb`` of ``parse --confidence`` where it has them), or
    ``text`` parsed by a pipeline (``confidence``: with a beam of 8, which
    gives each arc its probability)."""
    import spacy

    if Path(source).is_file() and file_kind(Path(source)) == "conllu":
        if text is not None:
            raise UserError(Errors.E079.format(source=source))
        vocab = spacy.blank(LANG).vocab
        sents = [s for s in read_conllu(source) if s.heads is not None]
        if sentence is not None:
            if not 1 <= sentence <= len(sents):
                raise UserError(Errors.E084.format(source=source, sentence=sentence, n=len(sents)))
            sents = [sents[sentence - 1]]
        docs = []
        for s in sents:
            doc = sentences_to_doc(vocab, [s])
            probs = head_probs(s.misc)
            if probs is not None:
                doc.user_data[HEAD_PROBS_KEY] = probs
            docs.append(doc)
        return docs
    if Path(source).is_file():
        check_input(Path(source))  # a file that is not CoNLL-U (nor a pipeline): named by what it is
        raise UserError(Errors.E119.format(source=source))
    pipeline_path(source)  # not found, or a folder that is no pipeline: one line (E116, E107)
    if text is None:
        raise UserError(Errors.E085.format(source=source))
    if not text.strip():
        raise UserError(Errors.E120)
    nlp = load_pipeline(source, {"beam_width": KBEST_BEAM, "n_best": 2} if confidence else None, beam_needed=False)
    return [nlp(text)]


@app.command("render")
def render_cmd(
    source: str = typer.Argument(..., help="A CoNLL-U file or a trained pipeline (path or package)"),
    output_path: Path = typer.Argument(..., help="An .svg or .html file"),
    text: Optional[str] = typer.Option(None, "--text", "-t", help="With a pipeline: the text to parse and draw"),
    sentence: Optional[int] = typer.Option(None, "--sentence", "-n", help="CoNLL-U: draw only the n-th sentence"),
    confidence: bool = flag(False, "--confidence", help=f"With a pipeline: parse with a beam of {KBEST_BEAM} and shade "
                                    "each arc by its probability (a CoNLL-U file's HeadProb shades them anyway)"),
) -> None:
    """Draw trees with the second plane below the words and non-projective arcs marked.

    The links of the first plane are drawn above the words, as displaCy
    draws arcs, and those of the second below them: the two stacks of the
    2-planar parser. An .svg or an .html page holds every sentence, one
    above the other (``--sentence``: that one only). Arcs with a probability
    (``HeadProb`` in the file, or ``--confidence`` with a pipeline) are
    shaded by it, pale where the parser doubts, and carry it after their
    label."""
    if output_path.suffix not in (".svg", ".html"):
        fail(Errors.E083.format(path=output_path))
    docs = parsed_docs(source, text, sentence, confidence)
    pictures = [svg for doc in docs for svg in sentence_svgs(doc)]
    with atomic_output(output_path) as f:
        f.write(html_page(pictures) if output_path.suffix == ".html" else stacked_svg(pictures) + "\n")
    msg.good(f"Wrote {output_path}")
