"""Raw text for vectors and pretraining: a corpus as a user has it (plain
text, ``.xz`` / ``.gz`` / ``.bz2``, CoNLL-U, a folder of such files), read as
lines of words in the form the parser will see them.

- **Unicode NFC**, the form of UD's treebanks: raw corpora are often
  decomposed (the Tesserae Greek texts: under 1% of their lines are NFC), and
  a decomposed form shares no character n-gram with the treebank's. A
  combining mark that opens a word is moved after the word's first letter
  (Greek texts that write a capital's breathing before it: U+0313 + Alpha).
  The vectors layer looks words up by the same NFC form
  (``model/static_vectors.py``), so that a decomposed input parses alike.
- **Case is kept.** Latin and Greek write proper names and sentence starts
  with capitals, as their treebanks do; floret's character n-grams give an
  unseen capitalised form the vector of its parts.
- **Words as the pipeline's tokenizer splits them** (``spacy.blank(lang)``):
  "ito." is "ito" and ".", as in a treebank and in ``parse``'s raw text.
- **Held-out text left out** (``excluded``): every line that shares a run of
  ``EXCLUDE_N`` words (compared case- and punctuation-free) with a sentence of
  the held-out files (a treebank's dev and test) is dropped, so that scores on
  them do not measure text the vectors read.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import re
import unicodedata
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from spacy_planar.errors import Errors, InputError, UserError
from spacy_planar.io.conllu import check_input, is_word_line

EXCLUDE_N = 5  # words in a run shared with held-out text that drop a line
CHUNKS = 1_000_000  # the distinct whitespace-separated stretches whose tokens a Corpus remembers
CHECKED = 2000  # stretches of letters tokenized to check that the tokenizer keeps them whole
_OPENERS = {".xz": lzma.open, ".lzma": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}
_LEADING_MARKS = re.compile(r"(?<!\S)([\u0300-\u036f]+)(\w)")
_WORD = re.compile(r"\w+")


def nfc(text: str) -> str:
    """``text`` in Unicode NFC, a combining mark that opens a word moved
    after the word's first letter first."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _LEADING_MARKS.sub(r"\2\1", text))


def source_files(sources: Sequence[Path]) -> List[Path]:
    """The files of ``sources``: each file as given, each folder's files
    below it (sorted, hidden ones left out). A missing source is a
    one-line error (E031); a folder with no file, E034."""
    files: List[Path] = []
    for source in sources:
        source = Path(source)
        if source.is_dir():
            found = sorted(p for p in source.rglob("*") if p.is_file()
                           and not any(part.startswith(".") for part in p.relative_to(source).parts))
            if not found:
                raise UserError(Errors.E034.format(sources=source))
            files.extend(found)
        else:
            check_input(source)
            files.append(source)
    return files


def _open_bytes(path: Path):
    return _OPENERS.get(path.suffix.lower(), open)(path, "rb")


def _text_lines(path: Path) -> Iterator[Tuple[int, str]]:
    """(number, text) of each line of ``path`` (decompressed), decoded one by
    one so that a byte that is not UTF-8 is named with its line."""
    number = 0
    try:
        with _open_bytes(path) as f:
            for number, raw in enumerate(f, 1):
                try:
                    yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as e:
                    raise InputError(path, number, Errors.E001.format(reason=e.reason, start=e.start)) from None
    except (EOFError, lzma.LZMAError, OSError) as e:  # a compressed file cut short or not compressed so
        raise InputError(path, number + 1, Errors.E113.format(reason=e)) from None


def file_lines(path: Path) -> Iterator[str]:
    """The lines of a text file (compressed or not), or the word forms of a
    CoNLL-U file's sentences, one sentence a line (told apart by the first
    line of content: tab-separated columns opened by a word ID). A file that
    is not UTF-8 or not readable as compressed is a one-line error naming it
    (and the line)."""
    conllu = None
    forms: List[str] = []
    for number, line in _text_lines(path):
        if conllu is None:
            if not line.strip() or line.startswith("#"):
                continue
            conllu = is_word_line(line)
        if not conllu:
            yield line
        elif not line.strip():
            if forms:
                yield " ".join(forms)
            forms = []
        elif not line.startswith("#"):
            cols = line.split("\t")
            if len(cols) < 2:
                raise InputError(path, number, Errors.E002.format(n=len(cols)))
            if cols[0].isdigit():  # words, not ranges or empty nodes
                forms.append(cols[1])
    if forms:
        yield " ".join(forms)


def is_conllu(path: Path) -> bool:
    """Whether ``path`` (plain or compressed) holds CoNLL-U, by the rule
    ``io.conllu.file_kind`` applies to its first line of content."""
    for _, line in _text_lines(path):
        if line.strip() and not line.startswith("#"):
            return is_word_line(line)
    return False


def ngrams(words: Sequence[str], n: int = EXCLUDE_N) -> Iterator[Tuple[str, ...]]:
    """The runs of ``n`` words of ``words``."""
    return (tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def comparable_words(line: str) -> List[str]:
    """A line's words as held-out text is matched: NFC, case-folded, without
    punctuation."""
    return [w.casefold() for w in _WORD.findall(nfc(line))]


def held_out_ngrams(paths: Sequence[Path], n: int = EXCLUDE_N) -> Set[Tuple[str, ...]]:
    """Every run of ``n`` words of the sentences of ``paths`` (CoNLL-U or text)."""
    found: Set[Tuple[str, ...]] = set()
    for path in source_files(paths):
        for line in file_lines(path):
            found.update(ngrams(comparable_words(line), n))
    return found


def bare(tokenizer):
    """A tokenizer that splits as ``tokenizer`` does (its exceptions, prefixes, suffixes, infixes,
    URL and token matches) over a vocab that works out no lexical attribute of the words it
    meets: a corpus of millions of words meets hundreds of thousands, each of which spaCy's own
    vocab would give a shape, a norm and a dozen flags nobody reads here."""
    from spacy.tokenizer import Tokenizer
    from spacy.vocab import Vocab

    return Tokenizer(Vocab(lex_attr_getters={}), rules=tokenizer.rules, prefix_search=tokenizer.prefix_search,
                     suffix_search=tokenizer.suffix_search, infix_finditer=tokenizer.infix_finditer,
                     token_match=tokenizer.token_match, url_match=tokenizer.url_match,
                     faster_heuristics=tokenizer.faster_heuristics)


class Corpus:
    """The lines of ``sources`` as the vectors and pretraining read them:
    NFC, split into words by ``tokenizer`` (a spaCy tokenizer; whitespace
    when None), blank lines and (``exclude``) lines with held-out text left
    out. Counts what it read and left out."""

    def __init__(self, sources: Sequence[Path], tokenizer=None, exclude: Sequence[Path] = (),
                 progress: Optional[Callable[[int], None]] = None):
        self.files = source_files(sources)
        self.tokenizer = None if tokenizer is None else bare(tokenizer)
        self.held_out = held_out_ngrams(exclude) if exclude else set()
        self.progress = progress
        self.words = 0
        self.lines = 0
        self.excluded_lines = 0
        self.excluded_words = 0
        self._chunks: Dict[str, List[str]] = {}
        self._rules = set(tokenizer.rules) if tokenizer is not None and tokenizer.rules else set()
        self._checked = 0  # stretches of letters the tokenizer kept whole so far (negative: one it split)

    def _lines(self, path: Path) -> Iterator[str]:
        for line in file_lines(path):
            line = nfc(line.strip())
            if not line:
                continue
            if self.held_out and any(g in self.held_out for g in ngrams(comparable_words(line))):
                self.excluded_lines += 1
                self.excluded_words += len(line.split())
                continue
            yield line

    def _words(self, path: Path) -> Iterator[List[str]]:
        """A CoNLL-U file's sentences are words already; text is split by the tokenizer."""
        lines = self._lines(path)
        if self.tokenizer is None or is_conllu(path):
            return (line.split() for line in lines)
        return (self._tokens(line) for line in lines)

    def _tokens(self, line: str) -> List[str]:
        """The line's tokens as the tokenizer splits it, whitespace left out. spaCy's tokenizer
        splits at whitespace first and then each stretch between on its own (prefixes, suffixes,
        infixes, exceptions: none of a language's spans whitespace but whitespace itself), so each
        distinct stretch is tokenized once and remembered (``CHUNKS`` of them); a stretch of
        letters that no exception names is one token for every language here (``_letters_whole``
        checks the first ``CHECKED`` such stretches against the tokenizer, and stops trusting it at
        the first that differs). The tokens are those of tokenizing each line whole, at about ten
        times the speed (tests/test_vectors.py holds the two equal)."""
        out: List[str] = []
        cache = self._chunks
        for chunk in line.split():
            tokens = cache.get(chunk)
            if tokens is None:
                if self._checked >= CHECKED and chunk.isalpha() and chunk not in self._rules:
                    tokens = [chunk]
                else:
                    tokens = [t.text for t in self.tokenizer(chunk) if not t.is_space]
                    if self._checked < CHECKED and chunk.isalpha() and chunk not in self._rules:
                        self._checked = self._checked + 1 if tokens == [chunk] else -(10 ** 12)
                if len(cache) >= CHUNKS:
                    cache.clear()
                cache[chunk] = tokens
            out.extend(tokens)
        return out

    def __iter__(self) -> Iterator[str]:
        """Each kept line as space-separated words."""
        for path in self.files:
            for words in self._words(path):
                if words:
                    self.words += len(words)
                    self.lines += 1
                    if self.progress is not None:
                        self.progress(len(words))
                    yield " ".join(words)

    def write(self, out: Path) -> int:
        """Writes the kept lines to ``out``; returns the number of words."""
        with out.open("w", encoding="utf-8") as f:
            for line in self:
                f.write(line + "\n")
        return self.words
