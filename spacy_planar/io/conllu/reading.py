"""Reading CoNLL-U: a line reader that keeps the line numbers, checks each
sentence (encoding, ten tab separated columns, IDs in order, HEAD a number or
``_``), so that errors name the file, line and reason, and builds each
``Sentence`` from the columns it split when checking: the columns as
written, the comments, multiword-token range lines and empty nodes as they
were, so that they are written back unchanged. MISC is read by ``conllu``'s
own parser (``SpaceAfter``); the other columns need no parsing beyond the
check (IDs and HEADs are checked numbers; the rest are kept as written).
The ``conllu`` library's whole-sentence parser would split and read every
line a second time: that was two thirds of the reading time."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, List, Optional, Tuple, Union

from conllu.parser import parse_dict_value

from spacy_planar.errors import ConlluError, Errors
from spacy_planar.trees.algorithms import tree_error

ID_WORD = re.compile(r"^[1-9][0-9]*$")


_ID_RANGE = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")


_ID_EMPTY = re.compile(r"^(0|[1-9][0-9]*)\.([1-9][0-9]*)$")


_HEAD = re.compile(r"^(0|[1-9][0-9]*)$")


@dataclass
class Sentence:
    """One CoNLL-U sentence: the columns of its words as written, plus what
    surrounds them (comments, multiword-token ranges, empty nodes)."""

    path: str
    line: int
    comments: List[str]
    forms: List[str]
    lemmas: List[str]
    upos: List[str]
    xpos: List[str]
    feats: List[str]
    heads: Optional[List[int]]  # None: not annotated (HEAD '_' everywhere)
    deprels: List[str]
    deps: List[str]
    misc: List[str]
    space_after: List[bool]
    # (first word, last word) 0-based, and the range line's 10 columns
    ranges: List[Tuple[int, int, List[str]]] = field(default_factory=list)
    # (number of words before it, the empty node's line as written)
    empty: List[Tuple[int, str]] = field(default_factory=list)
    word_lines: List[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.forms)

    @property
    def text(self) -> str:
        for c in self.comments:
            if c.startswith("# text ="):
                return c[len("# text ="):].strip()
        return ""


@dataclass
class SkipReport:
    """What ``--skip-invalid`` left out: one (line, reason) per sentence."""

    skipped: List[Tuple[int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.skipped)


class _Block:
    """One sentence's lines as read, (line number, line) each, and its word,
    range and empty-node lines as the check split them (``rows``: line number,
    line, columns)."""

    __slots__ = ("start", "lines", "rows", "error")

    def __init__(self, start: int):
        self.start = start
        self.lines: List[Tuple[int, str]] = []
        self.rows: List[Tuple[int, str, List[str]]] = []
        self.error: Optional[Tuple[int, str]] = None


class _CheckedLines:
    """Iterates the sentence blocks of a CoNLL-U file, each checked; a block
    that fails is an error, or with ``skip_invalid`` is left out and recorded
    in ``report``."""

    def __init__(self, stream: IO[bytes], path: str, skip_invalid: bool, report: SkipReport):
        self.stream = stream
        self.path = path
        self.skip_invalid = skip_invalid
        self.report = report

    def fail(self, block: _Block, line: int, reason: str) -> None:
        if not self.skip_invalid:
            raise ConlluError(self.path, line, reason)
        if block.error is None:
            block.error = (line, reason)

    def __iter__(self) -> Iterator[_Block]:
        block: Optional[_Block] = None
        lineno = 0
        for lineno, raw in enumerate(self.stream, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                if block is None:
                    block = _Block(lineno)
                self.fail(block, lineno, Errors.E001.format(reason=e.reason, start=e.start))
                continue
            line = line.rstrip("\r\n")
            if lineno == 1 and line.startswith("\ufeff"):  # a UTF-8 byte order mark
                line = line[1:]
            if line.strip():
                if block is None:
                    block = _Block(lineno)
                block.lines.append((lineno, line))
            elif block is not None:
                yield from self._finish(block)
                block = None
        if block is not None:
            yield from self._finish(block)

    def _finish(self, block: _Block) -> Iterator[_Block]:
        self._check(block)
        if block.error is not None:
            self.report.skipped.append(block.error)
            return
        yield block

    def _check(self, block: _Block) -> None:
        n_words = 0
        last_empty = (0, 0)
        range_end = 0
        n_heads = 0
        words = 0
        for lineno, line in block.lines:
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                return self.fail(block, lineno, Errors.E002.format(n=len(cols)))
            if "  " in line:  # inside a column: tabs part them
                return self.fail(block, lineno, Errors.E014)
            block.rows.append((lineno, line, cols))
            tid = cols[0]
            if ID_WORD.match(tid):
                n_words += 1
                if int(tid) != n_words:
                    return self.fail(block, lineno, Errors.E004.format(id=tid, expected=n_words))
                head = cols[6]
                if head != "_":
                    if not _HEAD.match(head):
                        return self.fail(block, lineno, Errors.E005.format(head=head))
                    n_heads += 1
                words += 1
                continue
            m = _ID_RANGE.match(tid)
            if m:
                first, last = int(m.group(1)), int(m.group(2))
                if first != n_words + 1 or last <= first or first <= range_end:
                    return self.fail(block, lineno, Errors.E004.format(id=tid, expected=f"a range from {n_words + 1}"))
                range_end = last
                continue
            m = _ID_EMPTY.match(tid)
            if m:
                pos = (int(m.group(1)), int(m.group(2)))
                if pos[0] != n_words or (pos[0] == last_empty[0] and pos[1] != last_empty[1] + 1) \
                        or (pos[0] != last_empty[0] and pos[1] != 1):
                    return self.fail(block, lineno, Errors.E004.format(id=tid, expected=f"{n_words}.x in sequence"))
                last_empty = pos
                continue
            return self.fail(block, lineno, Errors.E003.format(id=tid))
        if words == 0:
            return self.fail(block, block.start, Errors.E012)
        if range_end > n_words:
            return self.fail(block, block.start, Errors.E011.format(id=f"ending at {range_end}"))
        if 0 < n_heads < words:
            unannotated = [(n, ln.split("\t", 1)[0]) for n, ln in block.lines
                           if not ln.startswith("#") and ID_WORD.match(ln.split("\t", 1)[0])
                           and ln.split("\t")[6] == "_"]
            ids = ", ".join(i for _, i in unannotated[:10])
            return self.fail(block, unannotated[0][0], Errors.E010.format(ids=ids))


def read_conllu(path: Union[str, Path], skip_invalid: bool = False,
                report: Optional[SkipReport] = None) -> Iterator[Sentence]:
    """Stream the sentences of a CoNLL-U file.

    Raises ``ConlluError`` (file, line, reason) on the first malformed sentence
    (its trees too: every command that reads CoNLL-U, ``parse`` among them, refuses
    the same files), or with ``skip_invalid`` leaves it out and records it in ``report``.
    """
    path = str(path)
    if report is None:
        report = SkipReport()
    kind = file_kind(path)
    if kind != "conllu" and os.path.getsize(path):
        raise ConlluError(path, 1, Errors.E017 if kind == "docbin" else Errors.E018)
    with open(path, "rb") as stream:
        found = False
        for block in _CheckedLines(stream, path, skip_invalid, report):
            found = True
            sent = _to_sentence(block, path)
            fault = None if sent.heads is None else tree_error(sent.heads)
            if fault is not None:
                word, reason = fault
                line = sent.word_lines[word - 1] if word else sent.line
                if not skip_invalid:
                    raise ConlluError(path, line, reason)
                report.skipped.append((line, reason))
                continue
            yield sent
        if not found and not report.skipped:
            raise ConlluError(path, 1, Errors.E015)


_WORD_ID = re.compile(r"^[1-9][0-9]*([-.][0-9]+)?$")


def is_word_line(line: str) -> bool:
    """Whether a file's first line of content (neither blank nor a comment)
    makes it CoNLL-U: it has tab-separated columns or starts with a word ID
    (a malformed CoNLL-U line, 9 columns or an odd ID, is still CoNLL-U, for
    its reader to name). The one rule: ``file_kind`` and raw text's reader
    (``raw_text.is_conllu``) apply it."""
    return "\t" in line or _WORD_ID.match(line.split()[0]) is not None


def file_kind(path: Union[str, Path], peek: int = 1 << 16) -> str:
    """What a file holds, read from its content, not its name: ``docbin``
    (spaCy's DocBin: zlib-compressed msgpack), ``conllu`` (its first line
    that is neither blank nor a comment has tab-separated columns or starts
    with a word ID; only comments: CoNLL-U too) or ``text`` (anything else
    in UTF-8). Anything else: a one-line
    ``ConlluError`` (E019)."""
    import zlib

    check_input(path)
    with open(path, "rb") as f:
        head = f.read(peek)
    if head[:1] == b"\x78":
        try:
            zlib.decompressobj().decompress(head, 64)
            return "docbin"
        except zlib.error:
            pass
    bad = None
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as e:  # judged by what comes before (its reader names the line)
        bad, text = e, head[:e.start].decode("utf-8-sig")
    lines = text.splitlines()[:-1] if bad is not None else text.splitlines()  # the last one may be cut
    for line in lines:
        if line.strip() and not line.startswith("#"):
            return "conllu" if is_word_line(line) else "text"
    if bad is not None and bad.start < len(head) - 4:  # not only a character cut by the peek
        raise ConlluError(str(path), head[:bad.start].count(b"\n") + 1,
                          Errors.E019.format(reason=bad.reason, start=bad.start))
    return "conllu" if text.strip() else "text"


def read_utf8(path: Path) -> str:
    """A file's text; a byte that is not UTF-8 is a one-line error naming the file and line (E001)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConlluError(str(path), data[:e.start].count(b"\n") + 1,
                          Errors.E001.format(reason=e.reason, start=e.start)) from None


def check_input(path: Union[str, Path]) -> None:
    """Raise a one-line error unless ``path`` is a file that exists."""
    if not os.path.exists(path):
        raise FileNotFoundError(Errors.E031.format(path=path))
    if os.path.isdir(path):
        raise IsADirectoryError(Errors.E032.format(path=path))


def _space_after(misc: str) -> bool:
    """Whether MISC leaves a space after the word (no ``SpaceAfter=No``),
    read by conllu's MISC parser where the column names SpaceAfter at all."""
    return "SpaceAfter" not in misc or (parse_dict_value(misc) or {}).get("SpaceAfter") != "No"


def _to_sentence(block: _Block, path: str) -> Sentence:
    """The Sentence of a checked block, from the columns its check split."""
    cols_of = {name: [] for name in ("forms", "lemmas", "upos", "xpos", "feats", "deprels", "deps", "misc")}
    forms, lemmas, upos, xpos, feats, deprels, deps, misc = cols_of.values()
    heads: List[Optional[int]] = []
    space_after: List[bool] = []
    ranges: List[Tuple[int, int, List[str]]] = []
    empty: List[Tuple[int, str]] = []
    word_lines: List[int] = []
    for lineno, line, cols in block.rows:
        tid = cols[0]
        if "-" in tid:  # the check has made it a range of words that follow
            first, last = tid.split("-")
            ranges.append((int(first) - 1, int(last) - 1, cols))
            continue
        if "." in tid:
            empty.append((len(heads), line))
            continue
        forms.append(cols[1]), lemmas.append(cols[2]), upos.append(cols[3]), xpos.append(cols[4])
        feats.append(cols[5]), deps.append(cols[8]), misc.append(cols[9])
        heads.append(None if cols[6] == "_" else int(cols[6]))
        deprels.append(cols[7])
        space_after.append(_space_after(cols[9]))
        word_lines.append(lineno)
    for _, last, rcols in ranges:
        space_after[last] = _space_after(rcols[9])
    return Sentence(
        path=path, line=block.start, comments=[line for _, line in block.lines if line.startswith("#")],
        heads=None if heads and heads[0] is None else heads,  # type: ignore[arg-type]
        space_after=space_after, ranges=ranges, empty=empty, word_lines=word_lines,
        **cols_of,
    )
