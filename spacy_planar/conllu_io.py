"""CoNLL-U <-> spaCy ``Doc``, lossless for the treebank's annotation.

Reading streams the file through ``conllu.parse_incr``; a thin line reader in
front of it keeps the line numbers, checks each line (encoding, ten tab
separated columns, IDs in order, HEAD a number or ``_``) and holds the raw
lines, so that errors name the file, line and reason, and so that comments,
multiword-token range lines and empty nodes are written back as they were.

Mapping to spaCy: the syntactic words are the tokens; LEMMA -> ``lemma_``,
UPOS -> ``pos_``, XPOS -> ``tag_``, FEATS -> ``morph``, HEAD/DEPREL ->
``head``/``dep_`` (HEAD 0: the token is its own head), ``SpaceAfter=No`` ->
no whitespace. Words inside a multiword token are separated by a space in
``Doc.text`` (so that re-tokenising the text cannot glue them together: "de o",
never "deo"); the surface form and the range line are kept in
``Doc.user_data["conllu"]``, which ``DocBin(store_user_data=True)`` saves.
A sentence whose HEADs are all ``_`` is not annotated: its Doc has no parse.
"""
from __future__ import annotations

import os
import re
import tempfile
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, IO, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import conllu

from .doc_trees import OUTSIDE, ud_tree
from .errors import ConlluError, Errors, UserError
from .trees import tree_error

USER_DATA_KEY = "conllu"
# where the parser keeps k-best parses ([(start, end, [{"prob", "heads", "labels"}, ...])]) and
# arc probabilities (one per token) in ``Doc.user_data`` (``component/extensions.py`` reads them)
PARSES_KEY = "spacy_planar_parses"
HEAD_PROBS_KEY = "spacy_planar_head_probs"
# and per token the log-probability of the move that gave it its head in the best derivation
# (what ``spacy-planar calibrate`` fits on, with the parses)
MOVE_LOGP_KEY = "spacy_planar_move_logp"
_ID_WORD = re.compile(r"^[1-9][0-9]*$")
_ID_RANGE = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")
_ID_EMPTY = re.compile(r"^(0|[1-9][0-9]*)\.([1-9][0-9]*)$")
_HEAD = re.compile(r"^(0|[1-9][0-9]*)$")
_TWO_SPACES = re.compile(r" {2,}")


def _raw(line: List[str], i: int) -> str:
    return line[i]


# conllu parses ID, HEAD and MISC; the other columns are kept as written.
_FIELD_PARSERS = {
    "lemma": _raw, "upos": _raw, "xpos": _raw, "feats": _raw, "deprel": _raw, "deps": _raw,
}


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
    __slots__ = ("start", "lines", "error")

    def __init__(self, start: int):
        self.start = start
        self.lines: List[Tuple[int, str]] = []
        self.error: Optional[Tuple[int, str]] = None


class _CheckedLines:
    """Iterates the lines of a CoNLL-U file for ``conllu.parse_incr``, checking
    each sentence block before passing it on; the checked blocks (raw lines with
    their numbers) wait in ``self.blocks`` for the reader, in order."""

    def __init__(self, stream: IO[bytes], path: str, skip_invalid: bool, report: SkipReport,
                 words_only: bool = False):
        self.stream = stream
        self.path = path
        self.skip_invalid = skip_invalid
        self.report = report
        self.words_only = words_only  # HEAD and DEPREL neither checked nor read (``read_conllu``)
        self.blocks: deque = deque()

    def read(self) -> str:  # conllu.parse_incr asks for a file-like object
        return "".join(self)

    def fail(self, block: _Block, line: int, reason: str) -> None:
        if not self.skip_invalid:
            raise ConlluError(self.path, line, reason)
        if block.error is None:
            block.error = (line, reason)

    def __iter__(self) -> Iterator[str]:
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

    def _finish(self, block: _Block) -> Iterator[str]:
        self._check(block)
        if block.error is not None:
            self.report.skipped.append(block.error)
            return
        if self.words_only:
            block.lines = [(n, _without_tree(line)) for n, line in block.lines]
        self.blocks.append(block)
        for _, line in block.lines:
            yield line + "\n"
        yield "\n"

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
            if any(_TWO_SPACES.search(c) for c in cols):
                return self.fail(block, lineno, Errors.E014)
            tid = cols[0]
            if _ID_WORD.match(tid):
                n_words += 1
                if int(tid) != n_words:
                    return self.fail(block, lineno, Errors.E004.format(id=tid, expected=n_words))
                head = "_" if self.words_only else cols[6]
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
                           if not ln.startswith("#") and _ID_WORD.match(ln.split("\t", 1)[0])
                           and ln.split("\t")[6] == "_"]
            ids = ", ".join(i for _, i in unannotated[:10])
            return self.fail(block, unannotated[0][0], Errors.E010.format(ids=ids))


def _without_tree(line: str) -> str:
    """A word line with HEAD and DEPREL blank (other lines as they are)."""
    cols = line.split("\t")
    if line.startswith("#") or len(cols) != 10 or not _ID_WORD.match(cols[0]):
        return line
    cols[6] = cols[7] = "_"
    return "\t".join(cols)


def read_conllu(path: Union[str, Path], skip_invalid: bool = False,
                report: Optional[SkipReport] = None, words_only: bool = False) -> Iterator[Sentence]:
    """Stream the sentences of a CoNLL-U file.

    Raises ``ConlluError`` (file, line, reason) on the first malformed sentence,
    or with ``skip_invalid`` leaves it out and records it in ``report``.
    ``words_only``: the sentences to parse, their HEAD and DEPREL neither
    checked nor read (a file whose trees are wrong still has words).
    """
    path = str(path)
    if report is None:
        report = SkipReport()
    kind = file_kind(path)
    if kind != "conllu" and os.path.getsize(path):
        raise ConlluError(path, 1, Errors.E017 if kind == "docbin" else Errors.E018)
    with open(path, "rb") as stream:
        lines = _CheckedLines(stream, path, skip_invalid, report, words_only)
        found = False
        for tokenlist in conllu.parse_incr(lines, field_parsers=_FIELD_PARSERS):
            found = True
            block = lines.blocks.popleft()
            sent = _to_sentence(tokenlist, block, path)
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
            # a malformed CoNLL-U line (9 columns, an odd ID) is still CoNLL-U, for its reader to name
            return "conllu" if "\t" in line or _WORD_ID.match(line.split()[0]) else "text"
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


def _to_sentence(tokenlist: conllu.TokenList, block: _Block, path: str) -> Sentence:
    comments = [line for _, line in block.lines if line.startswith("#")]
    token_lines = [(n, line) for n, line in block.lines if not line.startswith("#")]
    cols = ("forms", "lemmas", "upos", "xpos", "feats", "deprels", "deps", "misc")
    keys = ("form", "lemma", "upos", "xpos", "feats", "deprel", "deps")
    out: Dict[str, list] = {c: [] for c in cols}
    heads: List[Optional[int]] = []
    space_after: List[bool] = []
    ranges: List[Tuple[int, int, List[str]]] = []
    empty: List[Tuple[int, str]] = []
    word_lines: List[int] = []
    for token, (lineno, line) in zip(tokenlist, token_lines):
        tid = token["id"]
        if isinstance(tid, tuple):
            if tid[1] == "-":
                ranges.append((tid[0] - 1, tid[2] - 1, line.split("\t")))
            else:
                empty.append((len(heads), line))
            continue
        for c, k in zip(cols, keys):
            out[c].append(token[k])
        out["misc"].append(line.rsplit("\t", 1)[1])
        heads.append(token["head"])
        misc = token["misc"] or {}
        space_after.append(misc.get("SpaceAfter") != "No")
        word_lines.append(lineno)
    for first, last, rcols in ranges:
        misc = conllu.parser.parse_dict_value(rcols[9]) or {}
        space_after[last] = misc.get("SpaceAfter") != "No"
    return Sentence(
        path=path, line=block.start, comments=comments,
        heads=None if heads and heads[0] is None else heads,  # type: ignore[arg-type]
        space_after=space_after, ranges=ranges, empty=empty, word_lines=word_lines,
        **out,
    )


# --- Sentence -> Doc -------------------------------------------------------

def _blank(value: str) -> str:
    return "" if value == "_" else value


def sentences_to_doc(vocab, sents: Sequence[Sentence]):
    """One ``Doc`` holding ``sents`` (their words as tokens, in order).
    (Over 60 lines: each CoNLL-U column has its list and its line.)"""
    from spacy.tokens import Doc

    words: List[str] = []
    spaces: List[bool] = []
    lemmas: List[str] = []
    pos: List[str] = []
    tags: List[str] = []
    morphs: List[str] = []
    heads: List[int] = []
    deps: List[str] = []
    sent_starts: List[bool] = []
    stored = []
    annotated = {s.heads is not None for s in sents}
    if len(annotated) > 1:
        raise UserError(Errors.E021)
    for sent in sents:
        offset = len(words)
        inside = set()
        for first, last, _ in sent.ranges:
            inside.update(range(first, last))  # all but the range's last word
        words.extend(sent.forms)
        spaces.extend(True if i in inside else sp for i, sp in enumerate(sent.space_after))
        lemmas.extend(_blank(x) for x in sent.lemmas)
        pos.extend(_blank(x) for x in sent.upos)
        tags.extend(_blank(x) for x in sent.xpos)
        morphs.extend(_blank(x) for x in sent.feats)
        if sent.heads is not None:
            heads.extend(offset + i if h == 0 else offset + h - 1 for i, h in enumerate(sent.heads))
            deps.extend(sent.deprels)
        sent_starts.extend([True] + [False] * (len(sent) - 1))
        entry = {
            "n": len(sent), "comments": sent.comments, "misc": sent.misc, "deps": sent.deps,
            "ranges": [[a, b, c] for a, b, c in sent.ranges], "empty": [[a, b] for a, b in sent.empty],
        }
        if sent.heads is None and any(d != "_" for d in sent.deprels):
            entry["deprels"] = sent.deprels
        stored.append(entry)
    try:
        doc = Doc(vocab, words=words, spaces=spaces, lemmas=lemmas, pos=pos, tags=tags, morphs=morphs,
                  heads=heads or None, deps=deps or None, sent_starts=None if heads else sent_starts)
    except ValueError as e:
        # the only check spaCy adds to ours: UPOS must be a UD tag
        bad = next((i for i, p in enumerate(pos) if p and p not in _UPOS), None)
        if bad is None:
            raise
        sent, i = _locate(sents, bad)
        raise ConlluError(sent.path, sent.word_lines[i], Errors.E013.format(reason=f"UPOS '{pos[bad]}' is not a UD tag")) from e
    # FEATS that spaCy normalises differently are kept as written
    start = 0
    for sent, entry in zip(sents, stored):
        over = {}
        for i, raw in enumerate(sent.feats):
            if raw != "_" and str(doc[start + i].morph) != raw:
                over[str(i)] = raw
        if over:
            entry["feats"] = over
        start += len(sent)
    doc.user_data[USER_DATA_KEY] = {"sents": stored}
    return doc


_UPOS = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
         "PUNCT", "SCONJ", "SYM", "VERB", "X"}


def _locate(sents: Sequence[Sentence], index: int) -> Tuple[Sentence, int]:
    for sent in sents:
        if index < len(sent):
            return sent, index
        index -= len(sent)
    raise IndexError(index)


def conllu_to_docs(path: Union[str, Path], vocab, n_sents: int = 1, skip_invalid: bool = False,
                   report: Optional[SkipReport] = None) -> Iterator:
    """Stream Docs of ``n_sents`` sentences each from a CoNLL-U file."""
    batch: List[Sentence] = []
    for sent in read_conllu(path, skip_invalid=skip_invalid, report=report):
        if batch and (len(batch) == n_sents or (batch[0].heads is None) != (sent.heads is None)):
            yield sentences_to_doc(vocab, batch)
            batch = []
        batch.append(sent)
    if batch:
        yield sentences_to_doc(vocab, batch)


# --- Doc -> CoNLL-U ----------------------------------------------------------

def _sentence_bounds(doc) -> List[Tuple[int, int, Optional[dict]]]:
    stored = doc.user_data.get(USER_DATA_KEY, {}).get("sents")
    if stored and sum(s["n"] for s in stored) == len(doc):
        bounds = []
        start = 0
        for s in stored:
            bounds.append((start, start + s["n"], s))
            start += s["n"]
        return bounds
    if len(doc) == 0:
        return []
    if doc.has_annotation("DEP") or doc.has_annotation("SENT_START"):
        return [(s.start, s.end, None) for s in doc.sents]
    return [(0, len(doc), None)]


def _with_space_after(misc: str, space: bool) -> str:
    """``misc`` with its SpaceAfter part set from the Doc's whitespace."""
    parts = [] if misc in ("_", "") else misc.split("|")
    has_no = "SpaceAfter=No" in parts
    if has_no != (not space):
        if space:
            parts.remove("SpaceAfter=No")
        else:
            parts.append("SpaceAfter=No")
            parts.sort(key=lambda p: p.split("=", 1)[0].lower())
    return "|".join(parts) if parts else "_"


def _field(value: str) -> str:
    return value if value else "_"


def doc_to_conllu(doc, doc_index: int = 0, first_sent_id: int = 1, kbest: int = 1, confidence: bool = False) -> str:
    """A Doc as CoNLL-U text: any Doc, from a treebank (comments, ranges and
    empty nodes come back as they were) or from raw text (``sent_id`` and
    ``text`` comments are made, whitespace gives ``SpaceAfter=No``). Tokens
    without a parse get HEAD and DEPREL ``_``; spaCy's root label ``ROOT`` is
    written as UD's ``root``. Where the parser put k-best parses on the Doc
    (``n_best``; ``PARSES_KEY``): ``kbest`` > 1 writes each sentence's
    ``# parse_prob`` and its next best parses after it, as blocks of their
    own (``# sent_id = ID/2`` ...); ``confidence`` writes each word's arc
    probability in the best parse as ``HeadProb`` in MISC."""
    parsed = doc.has_annotation("DEP")
    parses = {(s, e): alts for s, e, alts in doc.user_data.get(PARSES_KEY, [])}
    probs = doc.user_data.get(HEAD_PROBS_KEY) if confidence else None
    out: List[str] = []
    for k, (start, end, stored) in enumerate(_sentence_bounds(doc)):
        if stored is not None:
            comments = list(stored["comments"])
        else:
            comments = [f"# sent_id = {first_sent_id + k}", f"# text = {doc[start:end].text.strip()}"]
        tree = None
        if parsed:
            tree = ud_tree(doc, start, end)
            if OUTSIDE in tree[0]:
                raise UserError(Errors.E020.format(doc=doc_index, token=start + tree[0].index(OUTSIDE)))
        alts = parses.get((start, end), []) if kbest > 1 else []
        word_probs = probs[start:end] if probs is not None and tree is not None else None
        out.extend(_sentence_lines(doc, start, end, stored, comments, tree, word_probs,
                                   alts[0]["prob"] if alts else None))
        for j, alt in enumerate(alts[1:kbest], start=2):  # HeadProb: of the best parse's arcs only
            out.extend(_sentence_lines(doc, start, end, stored, _alternative_comments(comments, j),
                                       (alt["heads"], alt["labels"]), None, alt["prob"]))
    return "\n".join(out) + ("\n" if out else "")


def _alternative_comments(comments: List[str], j: int) -> List[str]:
    """A sentence's comments for its j-th best parse: ``sent_id`` as ``ID/j``."""
    out = [f"{line}/{j}" if line.startswith("# sent_id =") else line for line in comments]
    return out if any(line.startswith("# sent_id =") for line in comments) else [f"# sent_id = ?/{j}"] + out


def _sentence_lines(doc, start: int, end: int, stored: Optional[dict], comments: List[str],
                    tree: Optional[Tuple[List[int], List[str]]], probs: Optional[Sequence[float]],
                    parse_prob: Optional[float]) -> List[str]:
    """One sentence's CoNLL-U lines (``doc_to_conllu``), with ``tree``'s
    heads and labels (None: ``_``), ``probs`` per token as ``HeadProb``,
    ``parse_prob`` as a comment. (Over 50 lines: one loop writes each of the
    ten columns, from the stored treebank lines or from the Doc.)"""
    tokens = doc[start:end]
    heads, labels = tree if tree is not None else (None, None)
    out = list(comments)
    if parse_prob is not None:
        out.append(f"# parse_prob = {parse_prob:.4f}")
    if stored is not None:
        ranges = {int(r[0]): r for r in stored["ranges"]}
        empty: Dict[int, List[str]] = {}
        for after_word, line in stored["empty"]:
            empty.setdefault(int(after_word), []).append(line)
        feats = stored.get("feats", {})
        deprels = stored.get("deprels")
    else:
        ranges, empty, feats, deprels = {}, {}, {}, None
    inside_until = -1
    # raw text: a whitespace token (spaCy's for a second space, a tab, a newline) is no UD word;
    # it goes into the word before it as SpacesAfter, and words are numbered without it
    spaces = [t.is_space for t in tokens] if stored is None and not all(t.is_space for t in tokens) else []
    after: Dict[int, str] = {}
    if any(spaces):
        kept = [i for i, space in enumerate(spaces) if not space or i == 0]
        probs = [probs[i] for i in kept] if probs is not None else None
        tokens, heads, labels, after = _without_space_tokens(tokens, spaces, heads, labels)
    out.extend(empty.get(0, []))
    for i, token in enumerate(tokens):
        if i in ranges:
            first, last, cols = ranges[i]
            cols = list(cols)
            cols[9] = _with_space_after(cols[9], bool(doc[start + int(last)].whitespace_))
            out.append("\t".join(cols))
            inside_until = int(last)
        if heads is not None:
            head, deprel = str(heads[i]), _field(labels[i])
        else:
            head = "_"
            deprel = deprels[i] if deprels else "_"
        misc = stored["misc"][i] if stored is not None else "_"
        if i in after:
            misc = f"SpacesAfter={after[i]}"
        elif i > inside_until:
            misc = _with_space_after(misc, bool(token.whitespace_))
        if probs is not None:
            misc = _with_misc(misc, "HeadProb", f"{probs[i]:.3f}")
        morph = feats.get(str(i)) or _field(ud_feats(str(token.morph)))
        out.append("\t".join((
            str(i + 1), token.text, _field(token.lemma_), _field(token.pos_), _field(token.tag_),
            morph, head, deprel, stored["deps"][i] if stored is not None else "_", misc,
        )))
        out.extend(empty.get(i + 1, []))
    out.append("")
    return out


def ud_feats(morph: str) -> str:
    """spaCy's morph string in UD's order: features sorted by name case-
    insensitively (UD's validator: Number=Sing|NumType=Card; spaCy writes
    NumType first, by code point)."""
    if not morph:
        return morph
    return "|".join(sorted(morph.split("|"), key=lambda feature: feature.split("=", 1)[0].lower()))


def _with_misc(misc: str, name: str, value: str) -> str:
    """MISC with ``name=value`` added (in UD's order: attributes sorted)."""
    items = [item for item in misc.split("|") if item and item != "_" and not item.startswith(f"{name}=")]
    return "|".join(sorted(items + [f"{name}={value}"], key=str.lower))


_PROBABILITY = re.compile(r"[0-9.]+")


def head_prob(misc: str) -> Optional[float]:
    """A word's ``HeadProb`` from its MISC (what ``_with_misc`` writes for
    ``parse --confidence``); None where it has none."""
    value = next((item[len("HeadProb="):] for item in misc.split("|") if item.startswith("HeadProb=")), None)
    return float(value) if value is not None and _PROBABILITY.fullmatch(value) else None


_SPACE_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\", "|": "\\p"}


def _without_space_tokens(tokens, spaces: List[bool], heads, labels):
    """A sentence's tokens without its whitespace tokens (not the first),
    the heads renumbered (a word whose head was one takes that one's head),
    and per kept word before one the whitespace after it as UD's
    ``SpacesAfter`` value (escaped: ``\\s`` a space, ``\\t``, ``\\n``)."""
    keep = [i for i, space in enumerate(spaces) if not space or i == 0]
    new_index = {old: new for new, old in enumerate(keep)}
    after: Dict[int, str] = {}
    for i, space in enumerate(spaces):
        if space and i > 0:
            prev = max(k for k in keep if k < i)
            text = after.get(new_index[prev], None)
            raw = (tokens[prev].whitespace_ if text is None else "") + tokens[i].text_with_ws
            after[new_index[prev]] = (text or "") + "".join(_SPACE_ESCAPES.get(c, c) for c in raw)
    if heads is not None:
        def kept_head(i: int) -> int:  # 1-based, 0 for the root
            h = heads[i]
            seen = set()
            while h and spaces[h - 1] and h - 1 != 0 and h not in seen:
                seen.add(h)
                h = heads[h - 1]
            return 0 if not h else new_index[h - 1] + 1

        heads, labels = [kept_head(i) for i in keep], [labels[i] for i in keep]
    return [tokens[i] for i in keep], heads, labels, after


def docs_to_conllu(docs: Iterable, kbest: int = 1, confidence: bool = False) -> Iterator[str]:
    """CoNLL-U text, one chunk per Doc, sentence ids running across Docs
    (``kbest``, ``confidence``: as ``doc_to_conllu``)."""
    sent_id = 1
    for i, doc in enumerate(docs):
        text = doc_to_conllu(doc, doc_index=i, first_sent_id=sent_id, kbest=kbest, confidence=confidence)
        sent_id += len(_sentence_bounds(doc))
        yield text


# --- files -----------------------------------------------------------------------

@contextmanager
def atomic_output(path: Union[str, Path], mode: str = "w"):
    """Write to a temporary file beside ``path`` and move it into place only
    when the block succeeds: never a half-written output."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(Errors.E032.format(path=path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as any other written file (mkstemp makes it 0600)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_conllu(docs: Iterable, path: Union[str, Path], kbest: int = 1, confidence: bool = False) -> int:
    """Write Docs to a CoNLL-U file atomically; returns the number of Docs
    (``kbest``, ``confidence``: as ``doc_to_conllu``)."""
    n = 0
    with atomic_output(path) as f:
        for text in docs_to_conllu(docs, kbest, confidence):
            f.write(text)
            n += 1
    return n


def conllu_to_docbin(in_path, out_path, lang: str = "xx", n_sents: int = 1, skip_invalid: bool = False,
                     report: Optional[SkipReport] = None) -> Tuple[int, int]:
    """Convert a CoNLL-U file to a ``.spacy`` DocBin; returns (docs, words)."""
    import spacy
    from spacy.tokens import DocBin

    vocab = spacy.blank(lang).vocab
    db = DocBin(store_user_data=True)
    words = 0
    for doc in conllu_to_docs(in_path, vocab, n_sents=n_sents, skip_invalid=skip_invalid, report=report):
        db.add(doc)
        words += len(doc)
    with atomic_output(out_path, "wb") as f:
        f.write(db.to_bytes())
    return len(db), words


def read_docbin(path: Union[str, Path], lang: str = "xx") -> List:
    import spacy
    from spacy.tokens import DocBin

    check_input(path)
    vocab = spacy.blank(lang).vocab
    return list(DocBin(store_user_data=True).from_disk(path).get_docs(vocab))


def docbin_to_conllu(in_path, out_path, lang: str = "xx") -> Tuple[int, int]:
    docs = read_docbin(in_path, lang)
    write_conllu(docs, out_path)
    return len(docs), sum(len(d) for d in docs)


def _comparable(line: str) -> str:
    """What the round trip must keep of a line: all of comments and range
    lines; of word lines ID..DEPREL and the SpaceAfter part of MISC."""
    if line.startswith("#"):
        return line
    cols = line.split("\t")
    if len(cols) != 10 or not _ID_WORD.match(cols[0]):
        return line
    space = "SpaceAfter=No" if "SpaceAfter=No" in cols[9].split("|") else ""
    return "\t".join(cols[:8] + [space])


def roundtrip_diffs(path: Union[str, Path], lang: str = "xx", limit: int = 20,
                    every: int = 1) -> Tuple[int, List[Tuple[int, str, str]]]:
    """Convert a CoNLL-U file to Docs, through DocBin bytes, and back; returns
    (sentences checked, up to ``limit`` differing lines as (line, expected,
    got)). ``every``: check every k-th sentence only (a sample)."""
    import spacy
    from spacy.tokens import DocBin

    vocab = spacy.blank(lang).vocab
    sents = [s for i, s in enumerate(read_conllu(path)) if i % every == 0]
    db = DocBin(store_user_data=True, docs=(sentences_to_doc(vocab, [s]) for s in sents))
    docs = DocBin(store_user_data=True).from_bytes(db.to_bytes()).get_docs(vocab)
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
