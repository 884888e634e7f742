"""Whole files: CoNLL-U <-> DocBin, and the round trip's differences (``convert``)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple, Union

from spacy_planar.defaults import LANG
from spacy_planar.io.conllu.docs import TREEBANK_KEY, conllu_to_docs, sentences_to_doc, treebank_name
from spacy_planar.io.conllu.reading import ID_WORD, SkipReport, check_input, read_conllu
from spacy_planar.io.conllu.writing import atomic_output, doc_to_conllu, write_conllu


def conllu_to_docbin(in_path, out_path, lang: str = LANG, n_sents: int = 1, skip_invalid: bool = False,
                     report: Optional[SkipReport] = None, treebank: Optional[str] = None) -> Tuple[int, int]:
    """Convert a CoNLL-U file to a ``.spacy`` DocBin, each Doc marked with
    its treebank (``treebank``, else ``treebank_name(in_path)``); returns
    (docs, words)."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_planar.io.docbins import add_docs

    vocab = spacy.blank(lang).vocab
    db = DocBin(store_user_data=True)
    name = treebank or treebank_name(in_path)

    def named(docs):
        for doc in docs:
            doc.user_data[TREEBANK_KEY] = name
            yield doc

    add_docs(db, named(conllu_to_docs(in_path, vocab, n_sents=n_sents, skip_invalid=skip_invalid, report=report)))
    with atomic_output(out_path, "wb") as f:
        f.write(db.to_bytes())
    return len(db), sum(len(tokens) for tokens in db.tokens)


def read_docbin(path: Union[str, Path], lang: str = LANG) -> List:
    import spacy

    from spacy_planar.io.docbins import docbin_docs, load_docbin

    check_input(path)
    vocab = spacy.blank(lang).vocab
    return list(docbin_docs(load_docbin(path, store_user_data=True), vocab))


def docbin_to_conllu(in_path, out_path, lang: str = LANG) -> Tuple[int, int]:
    docs = read_docbin(in_path, lang)
    write_conllu(docs, out_path)
    return len(docs), sum(len(d) for d in docs)


def _comparable(line: str) -> str:
    """What the round trip must keep of a line: all of comments and range
    lines; of word lines ID..DEPREL and the SpaceAfter part of MISC."""
    if line.startswith("#"):
        return line
    cols = line.split("\t")
    if len(cols) != 10 or not ID_WORD.match(cols[0]):
        return line
    space = "SpaceAfter=No" if "SpaceAfter=No" in cols[9].split("|") else ""
    return "\t".join(cols[:8] + [space])


def roundtrip_diffs(path: Union[str, Path], lang: str = LANG, limit: int = 20,
                    every: int = 1) -> Tuple[int, List[Tuple[int, str, str]]]:
    """Convert a CoNLL-U file to Docs, through DocBin bytes, and back; returns
    (sentences checked, up to ``limit`` differing lines as (line, expected,
    got)). ``every``: check every k-th sentence only (a sample)."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_planar.io.docbins import add_docs, docbin_docs

    vocab = spacy.blank(lang).vocab
    sents = [s for i, s in enumerate(read_conllu(path)) if i % every == 0]
    db = DocBin(store_user_data=True)
    add_docs(db, (sentences_to_doc(vocab, [s]) for s in sents))
    docs = docbin_docs(DocBin(store_user_data=True).from_bytes(db.to_bytes()), vocab)
    diffs: List[Tuple[int, str, str]] = []
    with open(path, encoding="utf-8") as f:
        original = f.read().split("\n")
    for sent, doc in zip(sents, docs):
        got = doc_to_conllu(doc).split("\n")[:-2]  # drop the closing blank line
        first = sent.line - 1
        want = original[first:first + len(got)]
        for k, (a, b) in enumerate(zip(want, got)):
            if _comparable(a.rstrip("\r")) != _comparable(b):
                diffs.append((first + k + 1, a, b))
        if len(want) < len(got) or (first + len(got) < len(original) and original[first + len(got)].strip()):
            diffs.append((first + 1, "sentence of another length", ""))
        if len(diffs) >= limit:
            break
    return len(sents), diffs[:limit]


def conllu_to_paragraphs(input_path: Union[str, Path], output_path: Union[str, Path], per_line: int = 10) -> int:
    """A treebank's text as raw text, the way ``parse`` reads it: a
    paragraph a line (where the treebank marks ``# newpar``; where it marks
    none, ``per_line`` sentences a line), a blank line where a document ends
    (``# newdoc``). Each sentence's ``# text``, or its tokens with their
    spacing. Returns the number of sentences written. The file can then be
    parsed and the output scored against the treebank as it is."""
    sentences = list(read_conllu(input_path))
    marks_par = any(c.startswith("# newpar") for s in sentences for c in s.comments)
    lines: List[str] = []
    current: List[str] = []
    for k, s in enumerate(sentences):
        newdoc = any(c.startswith("# newdoc") for c in s.comments)
        newpar = any(c.startswith("# newpar") for c in s.comments) if marks_par else k % per_line == 0
        if current and (newdoc or newpar):
            lines.append(" ".join(current))
            current = []
        if newdoc and lines:
            lines.append("")
        current.append(s.text or sentence_text(s))
    if current:
        lines.append(" ".join(current))
    with atomic_output(output_path) as f:
        f.write("\n".join(lines) + "\n")
    return len(sentences)


def sentence_text(s) -> str:
    """A sentence's text from its tokens (range lines' forms for multiword tokens) and SpaceAfter."""
    starts = {a: (b, cols[1]) for a, b, cols in s.ranges}
    out, i = [], 0
    while i < len(s.forms):
        end, form = starts.get(i, (i, s.forms[i]))
        space = s.space_after[end]
        out.append(form + (" " if space else ""))
        i = end + 1
    return "".join(out).strip()
