"""``Doc`` -> CoNLL-U: the words (and the multiword tokens, comments, empty
nodes kept in ``Doc.user_data``) with the Doc's annotation; files written
atomically (``atomic_output``)."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy_planar.defaults import EXTRA_ROOT_LABEL
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu.docs import (HEAD_PROB_DECIMALS, HEAD_PROBS_KEY, MWT_KEY, PARAGRAPH_KEY, PARSES_KEY,
                                         USER_DATA_KEY)
from spacy_planar.io.conllu.kbest_blocks import alternative_comments, with_misc
from spacy_planar.io.doc_trees import OUTSIDE, ud_tree


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
    if not doc.has_annotation("DEP") and not doc.has_annotation("SENT_START"):
        return [(0, len(doc), None)] if not all(t.is_space for t in doc) else []
    # raw text: a sentence of whitespace tokens alone (a splitter's start on a second space) has no
    # UD word; its tokens join the sentence before it (the first sentence's: the one after it)
    bounds: List[Tuple[int, int, Optional[dict]]] = []
    pending = None
    for sent in doc.sents:
        if all(t.is_space for t in sent):
            if bounds:
                bounds[-1] = (bounds[-1][0], sent.end, None)
            elif pending is None:
                pending = sent.start
            continue
        bounds.append((sent.start if pending is None else pending, sent.end, None))
        pending = None
    return bounds


def _spaced(token) -> bool:
    """Whether a space follows the token: its whitespace, and at the end of a
    raw-text paragraph the line's end (UD: no SpaceAfter=No before # newpar)."""
    doc = token.doc
    return bool(token.whitespace_) or (PARAGRAPH_KEY in doc.user_data and token.i == len(doc) - 1)


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


def _alternatives(doc, parses: Dict, start: int, end: int) -> List[dict]:
    """A sentence's k-best parses (``PARSES_KEY``: by the parser's units).
    Where a unit of whitespace alone joined it (``_sentence_bounds``), its
    words' unit's, a root entry for each whitespace token (which is written as
    spacing, not as a word)."""
    if (start, end) in parses:
        return parses[start, end]
    for (s, e), alts in parses.items():
        if start <= s and e <= end and all(t.is_space for t in doc[start:s]) and all(t.is_space for t in doc[e:end]):
            lead, trail = s - start, end - e
            return [dict(alt, heads=[0] * lead + [h + lead if h else 0 for h in alt["heads"]] + [0] * trail,
                         labels=[EXTRA_ROOT_LABEL] * lead + list(alt["labels"]) + [EXTRA_ROOT_LABEL] * trail)
                    for alt in alts]
    return []


def _spacing(misc: str, tokens, k: int, after: Dict[int, str], before: str) -> str:
    """The MISC of word ``k`` of ``tokens`` (or of the multiword token it
    ends): ``SpacesAfter`` where whitespace tokens followed it (``after``),
    else ``SpaceAfter=No`` as its whitespace says; ``before`` (the escaped
    whitespace before a sentence's first word) as ``SpacesBefore``."""
    misc = f"SpacesAfter={after[k]}" if k in after else _with_space_after(misc, _spaced(tokens[k]))
    return f"SpacesBefore={before}" + ("" if misc == "_" else f"|{misc}") if before else misc


def _stored_columns(stored: Optional[dict]) -> Tuple[Dict, Dict[int, List[str]], Dict, Optional[List[str]]]:
    """A treebank sentence's kept lines (``USER_DATA_KEY``): its range lines
    by first word, its empty nodes by the word they follow, its FEATS as
    written and its DEPRELs; nothing for raw text (None)."""
    if stored is None:
        return {}, {}, {}, None
    empty: Dict[int, List[str]] = {}
    for after_word, line in stored["empty"]:
        empty.setdefault(int(after_word), []).append(line)
    return {int(r[0]): r for r in stored["ranges"]}, empty, stored.get("feats", {}), stored.get("deprels")


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
            comments = [f"# sent_id = {first_sent_id + k}", f"# text = {surface_text(doc, start, end)}"]
            if k == 0:  # raw text: where a document or paragraph starts
                comments = list(doc.user_data.get(PARAGRAPH_KEY, ())) + comments
        tree = None
        if parsed:
            tree = ud_tree(doc, start, end)
            if OUTSIDE in tree[0]:
                raise UserError(Errors.E020.format(doc=doc_index, token=start + tree[0].index(OUTSIDE)))
        alts = _alternatives(doc, parses, start, end) if kbest > 1 else []
        word_probs = probs[start:end] if probs is not None and tree is not None else None
        out.extend(_sentence_lines(doc, start, end, stored, comments, tree, word_probs,
                                   alts[0]["prob"] if alts else None))
        for j, alt in enumerate(alts[1:kbest], start=2):  # HeadProb: of the best parse's arcs only
            out.extend(_sentence_lines(doc, start, end, stored, alternative_comments(comments, j),
                                       (alt["heads"], alt["labels"]), None, alt["prob"]))
    return "\n".join(out) + ("\n" if out else "")


def _sentence_lines(doc, start: int, end: int, stored: Optional[dict], comments: List[str],
                    tree: Optional[Tuple[List[int], List[str]]], probs: Optional[Sequence[float]],
                    parse_prob: Optional[float]) -> List[str]:
    """One sentence's CoNLL-U lines (``doc_to_conllu``), with ``tree``'s
    heads and labels (None: ``_``), ``probs`` per token as ``HeadProb``,
    ``parse_prob`` as a comment. (About 50 lines: one loop writes each of the
    ten columns, from the stored treebank lines or from the Doc.)"""
    tokens = doc[start:end]
    heads, labels = tree if tree is not None else (None, None)
    out = list(comments)
    if parse_prob is not None:
        out.append(f"# parse_prob = {parse_prob:.4f}")
    ranges, empty, feats, deprels = _stored_columns(stored)
    inside_until = -1
    # raw text: a whitespace token (spaCy's for a second space, a tab, a newline) is no UD word;
    # it goes into the word before it as SpacesAfter (at the sentence's start: into the first word
    # as SpacesBefore), and words are numbered without it
    spaces = [t.is_space for t in tokens] if stored is None else []
    after: Dict[int, str] = {}
    before = ""
    if any(spaces):
        kept = [i for i, space in enumerate(spaces) if not space]
        probs = [probs[i] for i in kept] if probs is not None else None
        tokens, heads, labels, after, before = _without_space_tokens(tokens, spaces, heads, labels)
    if stored is None:  # raw text: the multiword tokens the multiword_tokens component made
        ranges = raw_ranges(doc, tokens)

    out.extend(empty.get(0, []))
    for i, token in enumerate(tokens):
        if i in ranges:
            first, last, cols = ranges[i]
            cols = list(cols)  # a multiword token's spacing is on its range line
            cols[9] = _spacing(cols[9], tokens, int(last), after, before if i == 0 else "")
            out.append("\t".join(cols))
            inside_until = int(last)
        if heads is not None:
            head, deprel = str(heads[i]), _field(labels[i])
        else:
            head = "_"
            deprel = deprels[i] if deprels else "_"
        misc = stored["misc"][i] if stored is not None else "_"
        if i > inside_until:
            misc = _spacing(misc, tokens, i, after, before if i == 0 else "")
        if probs is not None:
            misc = with_misc(misc, "HeadProb", f"{probs[i]:.{HEAD_PROB_DECIMALS}f}")
        morph = feats.get(str(i)) or _field(ud_feats(str(token.morph)))
        out.append("\t".join((
            str(i + 1), token.text, _field(token.lemma_), _field(token.pos_), _field(token.tag_),
            morph, head, deprel, stored["deps"][i] if stored is not None else "_", misc,
        )))
        out.extend(empty.get(i + 1, []))
    out.append("")
    return out


def raw_ranges(doc, tokens) -> Dict[int, Tuple[int, int, List[str]]]:
    """A raw-text sentence's multiword tokens (``MWT_KEY``), as the range
    lines a treebank's Doc keeps: first word -> (first, last, columns), by
    the words' places among ``tokens`` (the sentence's, whitespace left out)."""
    found = doc.user_data.get(MWT_KEY)
    if not found:
        return {}
    place = {token.i: k for k, token in enumerate(tokens)}
    out = {}
    for first, last, surface in found:
        if first in place and last in place:
            a, b = place[first], place[last]
            out[a] = (a, b, [f"{a + 1}-{b + 1}", surface] + ["_"] * 8)
    return out


def surface_text(doc, start: int, end: int) -> str:
    """A raw-text sentence's text as it was written: each multiword token's
    surface form in place of its words."""
    ranges = {first: (last, surface) for first, last, surface in doc.user_data.get(MWT_KEY) or []}
    parts, i = [], start
    while i < end:
        if i in ranges and ranges[i][0] < end:
            last, surface = ranges[i]
            parts.append(surface + doc[last].whitespace_)
            i = last + 1
        else:
            parts.append(doc[i].text_with_ws)
            i += 1
    return "".join(parts).strip()


def ud_feats(morph: str) -> str:
    """spaCy's morph string in UD's order: features sorted by name case-
    insensitively (UD's validator: Number=Sing|NumType=Card; spaCy writes
    NumType first, by code point)."""
    if not morph:
        return morph
    return "|".join(sorted(morph.split("|"), key=lambda feature: feature.split("=", 1)[0].lower()))


_SPACE_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\", "|": "\\p"}


def escaped_spaces(text: str) -> str:
    """Whitespace as UD's ``SpacesAfter`` / ``SpacesBefore`` write it: ``\\s``,
    ``\\t``, ``\\n``, ``\\r`` (and ``\\p``, ``\\\\``); any other whitespace (a
    no-break space, an em space) as ``\\u`` and its code point in hex, so that
    no column holds raw whitespace."""
    return "".join(_SPACE_ESCAPES.get(c) or (f"\\u{ord(c):04X}" if c.isspace() else c) for c in text)


def _without_space_tokens(tokens, spaces: List[bool], heads, labels):
    """A sentence's tokens without its whitespace tokens, the heads
    renumbered (a word whose head was one takes that one's head), per kept
    word before one the whitespace after it as UD's ``SpacesAfter`` value
    (escaped: ``\\s`` a space, ``\\t``, ``\\n``), and the whitespace
    before the first word (``SpacesBefore``, escaped alike)."""
    keep = [i for i, space in enumerate(spaces) if not space]
    new_index = {old: new for new, old in enumerate(keep)}
    after: Dict[int, str] = {}
    before = escaped_spaces("".join(t.text_with_ws for t in tokens[:keep[0]]))
    for i, space in enumerate(spaces):
        if space and i > keep[0]:
            prev = max(k for k in keep if k < i)
            text = after.get(new_index[prev], None)
            raw = (tokens[prev].whitespace_ if text is None else "") + tokens[i].text_with_ws
            after[new_index[prev]] = (text or "") + escaped_spaces(raw)
    if heads is not None:
        def kept_head(i: int) -> int:  # 1-based, 0 for the root
            h = heads[i]
            seen = set()
            while h and spaces[h - 1] and h not in seen:
                seen.add(h)
                h = heads[h - 1]
            return 0 if not h or spaces[h - 1] else new_index[h - 1] + 1

        heads, labels = [kept_head(i) for i in keep], [labels[i] for i in keep]
    return [tokens[i] for i in keep], heads, labels, after, before


def docs_to_conllu(docs: Iterable, kbest: int = 1, confidence: bool = False) -> Iterator[str]:
    """CoNLL-U text, one chunk per Doc, sentence ids running across Docs
    (``kbest``, ``confidence``: as ``doc_to_conllu``)."""
    sent_id = 1
    for i, doc in enumerate(docs):
        text = doc_to_conllu(doc, doc_index=i, first_sent_id=sent_id, kbest=kbest, confidence=confidence)
        sent_id += len(_sentence_bounds(doc))
        yield text


@contextmanager
def atomic_output(path: Union[str, Path], mode: str = "w"):
    """Write to a temporary file beside ``path`` and move it into place only
    when the block succeeds: never a half-written output."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(Errors.E032.format(path=path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:  # a folder that cannot be written: named as the user named it, not the temporary file
        raise UserError(Errors.E155.format(path=path, reason=e.strerror or type(e).__name__)) from None
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as any other written file (mkstemp makes it 0600)
        try:
            os.replace(tmp, path)
        except OSError as e:
            raise UserError(Errors.E155.format(path=path, reason=e.strerror or type(e).__name__)) from None
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
