"""``parse``: CoNLL-U or raw text through a trained pipeline."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Tuple

import numpy as np
import typer

from ..conllu_io import (USER_DATA_KEY, Sentence, atomic_output, check_input, doc_to_conllu, file_kind, read_conllu,
                         read_docbin, sentences_to_doc, write_conllu)
from ..doc_trees import set_trees, span_tree, ud_labels
from ..errors import ConlluError, Errors
from ._app import USER_ERRORS, app, fail, msg


def input_docs(nlp, sents: List[Sentence]) -> List:
    """Docs of the gold words only (no gold annotation), for a pipeline to parse."""
    from spacy.tokens import Doc

    docs = []
    for s in sents:
        spaces = list(s.space_after)
        for first, last, _ in s.ranges:
            for i in range(first, last):
                spaces[i] = True
        docs.append(Doc(nlp.vocab, words=s.forms, spaces=spaces))
    return docs


def ud_tree(doc) -> Tuple[List[int], List[str]]:
    """(heads, labels) of a parsed Doc in UD terms (HEAD 0 for roots, ``root``
    for spaCy's ``ROOT``)."""
    heads, labels = span_tree(doc)
    return heads, ud_labels(heads, labels)


def parse_sentences(nlp, sents: List[Sentence], batch_size: int = 1000) -> List:
    return piped(nlp, input_docs(nlp, sents), batch_size)


def piped(nlp, docs: List, batch_size: int) -> List:
    """``nlp.pipe`` over ``docs`` with a progress bar in words (on a
    terminal's stderr; none where stderr is not a terminal)."""
    from tqdm import tqdm

    total = sum(len(d) if not isinstance(d, str) else len(d.split()) for d in docs)
    out = []
    with tqdm(total=total, unit=" words", unit_scale=True, disable=None, leave=False) as bar:
        for doc in nlp.pipe(docs, batch_size=batch_size):
            out.append(doc)
            bar.update(len(doc))
    return out


# the columns a pipeline may predict: spaCy's annotation, the Token attribute that holds it
PREDICTED_COLUMNS = {"POS": "pos_", "TAG": "tag_", "LEMMA": "lemma_", "MORPH": "morph"}


def write_parsed(nlp, sents: List[Sentence], parsed: List, path: Path) -> None:
    """The input's lines with HEAD and DEPREL from the parsed Docs, and
    UPOS, XPOS, LEMMA, FEATS from them where the pipeline predicts the
    column (the input's own where it predicts none)."""
    with atomic_output(path) as f:
        for sent, doc in zip(sents, parsed):
            heads, labels = ud_tree(doc)
            out = sentences_to_doc(nlp.vocab, [sent])
            set_trees([out], np.asarray(heads, dtype=np.int64), labels, [len(heads)])
            for annotation, attr in PREDICTED_COLUMNS.items():
                if doc.has_annotation(annotation):
                    for mine, theirs in zip(out, doc):
                        setattr(mine, attr, getattr(theirs, attr))
                    if annotation == "MORPH":  # the input's FEATS as written give way too
                        out.user_data[USER_DATA_KEY]["sents"][0].pop("feats", None)
            f.write(doc_to_conllu(out))


def read_text(path: Path) -> List[str]:
    """The non-blank lines of a UTF-8 text file (a byte order mark is read)."""
    check_input(path)
    try:
        lines = [line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines()]
    except UnicodeDecodeError as e:
        raise ConlluError(str(path), path.read_bytes()[:e.start].count(b"\n") + 1,
                          Errors.E001.format(reason=e.reason, start=e.start)) from e
    texts = [line for line in lines if line]
    if not texts:
        raise ConlluError(str(path), 1, Errors.E016)
    return texts


def is_conllu(path: Path) -> bool:
    return file_kind(path) == "conllu"


@app.command()
def parse(
    model: str = typer.Argument(..., help="A trained spaCy pipeline (path or package)"),
    input_path: Path = typer.Argument(..., help="CoNLL-U or a spaCy DocBin (their words are parsed), or raw "
                                      "text, one paragraph or sentence per line; told apart by content"),
    output_path: Path = typer.Argument(..., help="CoNLL-U with predicted HEAD and DEPREL"),
    sentencizer: bool = typer.Option(False, "--sentencizer", "-s", help="Raw text: split each line into "
                                     "sentences (spaCy's sentencizer) rather than parse it as one"),
    batch_size: int = typer.Option(1000, "--batch-size", "-b", help="Docs per batch"),
    validate: bool = typer.Option(False, "--validate", "-V", help="Check the output with the UD validator "
                                  "(level 2); exit 1 if it fails"),
) -> None:
    """Parse CoNLL-U or raw text with any pipeline (ours or spaCy's parser).

    CoNLL-U input keeps its lines, with HEAD and DEPREL replaced, and UPOS,
    XPOS, LEMMA, FEATS where the pipeline predicts them; raw text is
    tokenised by the pipeline and written with ``# text`` and
    ``SpaceAfter=No``."""
    import spacy

    try:
        nlp = spacy.load(model)
        start = time.perf_counter()
        kind = file_kind(input_path)
        sents = []
        if kind == "conllu":
            sents = list(read_conllu(input_path))
            parsed = parse_sentences(nlp, sents, batch_size)
            seconds = time.perf_counter() - start
            write_parsed(nlp, sents, parsed, output_path)
        elif kind == "docbin":  # its Docs' words, parsed and written as CoNLL-U
            from spacy.tokens import Doc

            words = [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d])
                     for d in read_docbin(input_path)]
            parsed = piped(nlp, words, batch_size)
            seconds = time.perf_counter() - start
            write_conllu(parsed, output_path)
        else:
            if sentencizer and "sentencizer" not in nlp.pipe_names:
                nlp.add_pipe("sentencizer", first=True)
            parsed = piped(nlp, read_text(input_path), batch_size)
            seconds = time.perf_counter() - start
            write_conllu(parsed, output_path)
    except USER_ERRORS as e:
        fail(str(e))
    report_output(model, parsed, sents, seconds, output_path, validate)


def report_output(model: str, parsed: List, sents: List[Sentence], seconds: float, output_path: Path,
                  validate: bool) -> None:
    """What ``parse`` says of its output: its size and speed; a warning
    where it has no UPOS (neither predicted nor the input's); with
    ``validate``, the UD validator's verdict at level 2 (its report and
    exit 1 where it fails)."""
    words = sum(len(d) for d in parsed)
    n_sents = sum(1 for d in parsed for _ in d.sents)
    msg.good(f"Parsed {n_sents} sentences, {words} words in {seconds:.1f} s "
             f"({words / max(seconds, 1e-9):,.0f} words/s): {output_path}")
    if words and not any(d.has_annotation("POS") for d in parsed) and all(
            u in ("_", "") for s in sents for u in s.upos):
        msg.warn(f"{model} predicts no UPOS (no tagger or morphologizer), so the UPOS column is '_', which the UD "
                 "validator rejects (level 2); configs/ud.cfg trains a pipeline whose output is valid UD")
    if validate:
        from ..official import validate as ud_validate

        passed, report = ud_validate(output_path, level=2)
        if not passed:
            print(report)
            raise typer.Exit(1)
        msg.good(f"UD validator, level 2: passed ({output_path})")
