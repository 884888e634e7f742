"""``parse``: CoNLL-U or raw text through a trained pipeline."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List

import typer

from ..conllu_io import Sentence, atomic_output, doc_to_conllu, read_conllu, sentences_to_doc
from ..errors import ConlluError
from ._app import app, fail, msg


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


def ud_tree(doc) -> tuple:
    """(heads, labels) of a parsed Doc in UD terms: HEAD 0 for roots, and
    spaCy's own root label ``ROOT`` (its parser's, whatever the data said)
    written as UD's ``root``."""
    heads = [0 if t.head.i == t.i else t.head.i + 1 for t in doc]
    labels = ["root" if h == 0 and t.dep_ == "ROOT" else t.dep_ for h, t in zip(heads, doc)]
    return heads, labels


def parse_sentences(nlp, sents: List[Sentence], batch_size: int = 1000) -> List:
    return list(nlp.pipe(input_docs(nlp, sents), batch_size=batch_size))


def write_parsed(nlp, sents: List[Sentence], parsed: List, path: Path) -> None:
    """The input's lines with HEAD and DEPREL from the parsed Docs."""
    from spacy.tokens import Doc

    with atomic_output(path) as f:
        for sent, doc in zip(sents, parsed):
            heads, labels = ud_tree(doc)
            gold = sentences_to_doc(nlp.vocab, [sent])
            out = Doc(nlp.vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold],
                      lemmas=[t.lemma_ for t in gold], pos=[t.pos_ for t in gold], tags=[t.tag_ for t in gold],
                      morphs=[str(t.morph) for t in gold], deps=labels,
                      heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)])
            out.user_data.update(gold.user_data)
            f.write(doc_to_conllu(out))


@app.command()
def parse(
    model: str = typer.Argument(..., help="A trained spaCy pipeline (path or package)"),
    input_path: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U"),
    output_path: Path = typer.Argument(..., help="CoNLL-U with predicted HEAD and DEPREL"),
    batch_size: int = typer.Option(1000, "--batch-size", "-b"),
) -> None:
    """Parse gold-tokenised CoNLL-U with any pipeline (ours or spaCy's parser)."""
    import spacy

    try:
        sents = list(read_conllu(input_path))
        nlp = spacy.load(model)
        start = time.perf_counter()
        parsed = parse_sentences(nlp, sents, batch_size)
        seconds = time.perf_counter() - start
        write_parsed(nlp, sents, parsed, output_path)
    except (ConlluError, FileNotFoundError, OSError, ValueError) as e:
        fail(str(e))
    words = sum(len(s) for s in sents)
    msg.good(f"Parsed {len(sents)} sentences, {words} words in {seconds:.1f} s "
             f"({words / max(seconds, 1e-9):,.0f} words/s): {output_path}")
