"""One file parsed: CoNLL-U, a DocBin or raw text in, CoNLL-U out (``parse_file``, what ``parse``
runs and every runner of a corpus's jobs runs, so that an output is byte-identical whoever wrote
it), written atomically as it goes."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.errors import ConlluError, Errors
from spacy_planar.io.conllu import (
    HEAD_PROBS_KEY,
    PARAGRAPH_KEY,
    PARSES_KEY,
    USER_DATA_KEY,
    Sentence,
    atomic_output,
    check_input,
    doc_to_conllu,
    docs_to_conllu,
    file_kind,
    read_conllu,
    read_docbin,
    read_utf8,
    sentences_to_doc,
)
from spacy_planar.io.doc_trees import set_trees, ud_tree
from spacy_planar.io.inputs import open_bytes, readable
from spacy_planar.io.progress import progress_bar
from spacy_planar.io.raw_text import nfc
from spacy_planar.io.readers import WORDS_GIVEN

# the columns a pipeline may predict: spaCy's annotation, the Token attribute that holds it
PREDICTED_COLUMNS = {"POS": "pos_", "TAG": "tag_", "LEMMA": "lemma_", "MORPH": "morph"}


@dataclass
class FileReport:
    """What parsing one file gave: its size, and whether its output has UPOS;
    ``error``: the one-line reason a bad input was skipped (``--skip-invalid``);
    ``repairs``: what the parser repaired in it, by code (``parser/shared/repairs.py``)."""
    path: str
    words: int
    sentences: int
    has_upos: bool
    error: str = ""
    repairs: Dict[str, int] = field(default_factory=dict)


def repair_counts(nlp) -> Counter:
    """What the pipeline's parsers have repaired so far, by code (each ``planar_parser``'s ``repaired``)."""
    total: Counter = Counter()
    for name in nlp.pipe_names:
        total.update(getattr(nlp.get_pipe(name), "repaired", None) or {})
    return total


# --- one file ------------------------------------------------------------------------

def input_docs(nlp, sents: List[Sentence]) -> List:
    """Docs of the gold words only (no gold annotation), for a pipeline to
    parse: ``words_doc`` of each sentence."""
    out = []
    for s in sents:
        spaces = list(s.space_after)
        for first, last, _ in s.ranges:
            for i in range(first, last):
                spaces[i] = True
        out.append(words_doc(nlp.vocab, s.forms, spaces))
    return out


def words_doc(vocab, words: List[str], spaces: List[bool], sent_starts: Optional[List[bool]] = None):
    """A Doc of given words (one sentence, or ``sent_starts``' sentences),
    marked as words (``readers.WORDS_GIVEN``: the multiword_tokens component
    leaves them as they are); ``given_sentences`` runs a pipeline over such
    Docs."""
    from spacy.tokens import Doc

    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=sent_starts)
    doc.user_data[WORDS_GIVEN] = True
    return doc


def sentence_starts(doc) -> Optional[List[bool]]:
    """A Doc's sentence starts where it has sentences (a DocBin's Doc of several), else None."""
    if len(doc) and (doc.has_annotation("SENT_START") or doc.has_annotation("DEP")):
        starts = [bool(t.is_sent_start) for t in doc]
        return starts if sum(starts) > 1 else None
    return None


SENTENCE_SPLITTERS = ("senter", "planar_senter", "sentencizer")  # factories that set sentences


def parse_words(nlp, words: Sequence[str], spaces: Optional[Sequence[bool]] = None,
                sent_starts: Optional[Sequence[bool]] = None):
    """A Doc of given words parsed as ``spacy-planar parse`` parses a CoNLL-U sentence: the words
    kept as they are (no multiword-token split), one sentence (or ``sent_starts``' sentences), the
    pipeline's sentence splitters not run. ``nlp(Doc(nlp.vocab, words=words))`` instead lets the
    senter split the words, as raw text is."""
    words = list(words)
    doc = words_doc(nlp.vocab, words, list(spaces) if spaces is not None else [True] * len(words),
                    list(sent_starts) if sent_starts is not None else [i == 0 for i in range(len(words))])
    return next(given_sentences(nlp, [doc]))


def given_sentences(nlp, docs: Iterable, batch_size: Optional[int] = None, disable: Sequence[str] = ()) -> Iterator:
    """``nlp.pipe`` over Docs that are one sentence each (a treebank's):
    the pipeline's sentence splitters are not run on them."""
    splitters = [name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory in SENTENCE_SPLITTERS]
    return nlp.pipe(docs, batch_size=batch_size, disable=[*splitters, *disable])


def parsed_conllu(nlp, pairs: Iterable[Tuple[Sentence, object]], kbest: int = 1, confidence: bool = False,
                  keep_input_columns: bool = False) -> Iterator[str]:
    """The CoNLL-U text of each (input sentence, parsed Doc): the input's
    words (and multiword tokens, comments) with HEAD and DEPREL from the
    Doc, and UPOS, XPOS, LEMMA, FEATS from it where the pipeline predicts
    the column; the columns it does not predict are ``_``, DEPS too, MISC
    holds only SpaceAfter=No (from the words' spacing), and empty nodes are
    left out (an enhanced graph the pipeline did not predict), unless
    ``keep_input_columns``: then they are the input's.
    ``kbest``, ``confidence``: as ``io.conllu.doc_to_conllu``."""
    for sent, doc in pairs:
        heads, labels = ud_tree(doc)
        out = sentences_to_doc(nlp.vocab, [sent])
        stored = out.user_data[USER_DATA_KEY]["sents"][0]
        set_trees([out], np.asarray(heads, dtype=np.int64), labels, [len(heads)])
        for annotation, attr in PREDICTED_COLUMNS.items():
            predicted = doc.has_annotation(annotation)
            if predicted or not keep_input_columns:
                for mine, theirs in zip(out, doc):
                    if annotation == "MORPH":
                        mine.set_morph(str(theirs.morph) if predicted else None)
                    else:  # the Token attribute PREDICTED_COLUMNS names
                        setattr(mine, attr, getattr(theirs, attr) if predicted else "")
                if annotation == "MORPH":  # the input's FEATS as written give way too
                    stored.pop("feats", None)
        if not keep_input_columns:  # and MISC as predicted: SpaceAfter from the words' spacing only
            stored["deps"] = ["_"] * len(sent)
            stored["empty"] = []
            stored["misc"] = ["_"] * len(sent)
            stored["ranges"] = [(first, last, list(cols[:9]) + ["_"]) for first, last, cols in stored["ranges"]]
        for key in (PARSES_KEY, HEAD_PROBS_KEY):
            if key in doc.user_data:
                out.user_data[key] = doc.user_data[key]
        yield doc_to_conllu(out, kbest=kbest, confidence=confidence)


def read_text(path: Path) -> List[str]:
    """The non-blank lines of a UTF-8 text file (a byte order mark is read)."""
    return [text for text, _ in read_paragraphs(path)]


def read_paragraphs(path: Path) -> List[Tuple[str, List[str]]]:
    """Each non-blank line of a UTF-8 text file (a paragraph), in Unicode
    NFC as UD's words and ``# text`` must be (``raw_text.nfc``), with the
    comments its first sentence opens with: ``# newpar``, after ``# newdoc``
    on the file's first line and on the first after a blank line (a
    document ends there), as UDPipe writes them."""
    check_input(path)
    out: List[Tuple[str, List[str]]] = []
    new_document = True
    for line in read_utf8(path).splitlines():
        line = nfc(line.strip())
        if not line:
            new_document = True
            continue
        out.append((line, ["# newdoc", "# newpar"] if new_document else ["# newpar"]))
        new_document = False
    if not out:
        raise ConlluError(str(path), 1, Errors.E016)
    return out


# sentences (CoNLL-U) read, parsed and written at a time: a file's memory is a chunk's, not the file's
CHUNK = 2000


def parse_file(nlp, input_path: Path, output_path: Path, sentencizer: bool = False, batch_size: Optional[int] = None,
               progress: bool = True, kbest: int = 1, confidence: bool = False,
               keep_input_columns: bool = False, header: str = "") -> FileReport:
    """Parse one file with ``nlp`` and write its CoNLL-U atomically, as it
    goes (the memory of a chunk of ``CHUNK`` sentences, not of the file),
    with a progress bar in words on a terminal (``progress``).

    CoNLL-U input keeps its words, with HEAD and DEPREL replaced, and UPOS,
    XPOS, LEMMA, FEATS where the pipeline predicts them (the rest ``_``,
    unless ``keep_input_columns``: ``parsed_conllu``); a DocBin's words are
    parsed; raw text (one paragraph or sentence per line) is tokenised by the
    pipeline, each line one Doc (``sentencizer``: split into sentences by
    spaCy's sentencizer, else parsed as one) and written with ``# text`` and
    ``SpaceAfter=No``. ``kbest`` > 1: each sentence's next best parses
    after it; ``confidence``: each word's arc probability in MISC (both
    where the pipeline's parser keeps them: ``n_best``); ``header``: the
    output's first comment lines (``pipelines.header_line``). Bad input raises a
    one-line ``UserError`` and leaves no output."""
    report = FileReport(str(input_path), 0, 0, False)
    repaired_before = repair_counts(nlp)
    # a stream read once, a compressed file decompressed once; the file's new forms leave the vocab with it
    with readable(input_path) as given, transient_strings(nlp):
        input_upos = _write_parsed(nlp, given, Path(output_path), report, sentencizer, batch_size, progress, kbest,
                                   confidence, keep_input_columns, header)
    report.has_upos = report.has_upos or (keep_input_columns and input_upos)
    report.repairs = dict(repair_counts(nlp) - repaired_before)
    return report


def transient_strings(nlp):
    """spaCy's memory zone (3.8 and later; nothing before): the strings and lexemes a file's new
    forms add to the vocab are freed after it, so that a process parsing millions of words stays
    in flat memory (docs/results.md, "Training speed and memory"). The components' caches are keyed
    by the forms' hashes, which stay the same."""
    from contextlib import nullcontext

    zone = getattr(nlp, "memory_zone", None)
    return zone() if zone is not None else nullcontext()


def _write_parsed(nlp, input_path: Path, output_path: Path, report: FileReport, sentencizer: bool,
                  batch_size: Optional[int], progress: bool, kbest: int, confidence: bool, keep_input_columns: bool,
                  header: str) -> bool:
    """``parse_file``'s work on a plain, regular input file: its parse written atomically, counted
    in ``report``; returns whether the input (CoNLL-U) has UPOS of its own."""
    kind = file_kind(input_path)
    input_upos = False

    def counted(docs: Iterable) -> Iterator:
        for doc in docs:
            report.words += len(doc)
            report.sentences += sum(1 for _ in doc.sents)
            report.has_upos = report.has_upos or doc.has_annotation("POS")
            bar.update(len(doc))
            yield doc

    # raw text's words are known once tokenised: no total
    with atomic_output(output_path) as f, progress_bar(total=count_words(input_path) if kind == "conllu" else None,
                                                       enabled=progress, leave=False) as bar:
        f.write(header)
        if kind == "conllu":
            for chunk in chunked(read_conllu(input_path), CHUNK):
                input_upos = input_upos or any(u not in ("_", "") for s in chunk for u in s.upos)
                parsed = counted(given_sentences(nlp, input_docs(nlp, chunk), batch_size))
                for text in parsed_conllu(nlp, zip(chunk, parsed), kbest, confidence, keep_input_columns):
                    f.write(text)
        else:
            if kind == "docbin":  # its words and sentences
                parsed = given_sentences(nlp, (words_doc(nlp.vocab, [t.text for t in d],
                                                         [bool(t.whitespace_) for t in d],
                                                         sentence_starts(d)) for d in read_docbin(input_path)),
                                         batch_size)
            else:
                paragraphs = read_paragraphs(input_path)
                parsed = nlp.pipe(text_inputs(nlp, [t for t, _ in paragraphs], sentencizer), batch_size=batch_size)
                parsed = marked(parsed, [marks for _, marks in paragraphs])
            for text in docs_to_conllu(counted(parsed), kbest, confidence):
                f.write(text)
    return input_upos


def marked(docs: Iterable, marks: List[List[str]]) -> Iterator:
    """Each parsed Doc with the # newdoc / # newpar its first sentence opens with."""
    for doc, opening in zip(docs, marks):
        doc.user_data[PARAGRAPH_KEY] = opening
        yield doc


def text_inputs(nlp, texts: List[str], sentencizer: bool) -> Iterable:
    """Raw text lines as ``nlp.pipe`` inputs; with ``sentencizer``,
    Docs split into sentences by spaCy's sentencizer, run before the
    pipeline, which stays as it was given (unless it has one)."""
    if not sentencizer or "sentencizer" in nlp.pipe_names:
        return texts
    from spacy.pipeline import Sentencizer

    split = Sentencizer()
    return (split(nlp.make_doc(text)) for text in texts)


def chunked(items: Iterable, size: int) -> Iterator[List]:
    """``items`` in lists of ``size`` (the last shorter)."""
    chunk: List = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def count_words(path: Path) -> int:
    """About the words of a file, for a progress bar: the word lines of
    CoNLL-U, the whitespace-separated tokens of anything else."""
    n = 0
    with open_bytes(path) as f:
        conllu = b"\t" in f.read(1 << 16)
    with open_bytes(path) as f:
        for line in f:
            if conllu:
                n += line[:1].isdigit() and b"\t" in line and line.split(b"\t", 1)[0].isdigit()
            else:
                n += len(line.split())
    return n
