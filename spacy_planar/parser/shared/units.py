"""What a parse reads of a batch of Docs, for either parser: the units (sentences) of a Doc, a
unit's parse as the component hands it on (``Parsed``), the words a parse reads where some
tokens are whitespace and how those are attached after it, and batches of similar length."""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

from spacy_planar.trees.algorithms import Tree

Unit = Tuple[int, int, int]  # (Doc, start, end)


def units(doc: Doc) -> List[Tuple[int, int]]:
    """Parse units: the Doc's sentences where it has them (set by the senter or the user, read
    from CoNLL-U, or by the roots of a parser before this one, one a sentence), else the Doc. A
    parser never parses across a boundary set before it, so each of its trees keeps them."""
    if len(doc) == 0:
        return []
    if doc.has_annotation("SENT_START") or doc.has_annotation("DEP"):
        return [(s.start, s.end) for s in doc.sents]
    return [(0, len(doc))]


class Parsed(NamedTuple):
    """A unit's parse: its (start, end) in its Doc, its tree in the system's terms, its beam's
    final states (where ``n_best`` > 1) and whether it fell out of its beam and was parsed
    greedily (never expected: ``codec.TreeCodec.output_trees`` counts and reports it)."""
    span: Tuple[int, int]
    tree: Tree
    finals: Optional[List] = None
    fell_out: bool = False


def unit_words(docs: List[Doc], found: List[Unit]) -> Tuple[List[np.ndarray], List[int], Optional[np.ndarray]]:
    """What a parse reads of the units ``found`` of ``docs`` where some tokens are whitespace
    (attached after it, ``with_whitespace``): per unit, its words' positions in it and the row
    of its first word among the Docs' words (-1: a unit of whitespace only), and the rows of
    those words among the Docs' tokens (a scorer's ``restricted``); None where no token is
    whitespace (each unit's words are its tokens, its first row its first token's)."""
    space = np.concatenate([doc.to_array(IS_SPACE) for doc in docs]).astype(bool)
    doc_start = np.cumsum([0] + [len(d) for d in docs])
    compact = np.cumsum(~space) - 1  # each word's row among the words that are not whitespace
    words = [np.flatnonzero(~space[doc_start[k] + s:doc_start[k] + e]) for k, s, e in found]
    rows = [int(compact[doc_start[k] + s + w[0]]) if len(w) else -1 for (k, s, _), w in zip(found, words)]
    return words, rows, (np.flatnonzero(~space) if space.any() else None)


def with_whitespace(tree: Tree, words: np.ndarray, n: int, label: str, root_label: str) -> Tree:
    """A unit's tree over all its ``n`` tokens from the parse of its
    ``words`` (their positions, 0-based): every other token (whitespace) is
    attached to the word before it, or the first word after it at the
    start, with ``label``, never scored (spaCy's parser does the same); a
    unit of whitespace only: its first token the root, the others under it."""
    heads, labels = tree
    if len(words) == n:
        return heads, labels
    if not len(words):
        return [0] + [1] * (n - 1), [root_label] + [label] * (n - 1)
    position = np.asarray(words) + 1  # 1-based
    out_heads = [0] * n
    out_labels = [label] * n
    for j, (h, l) in enumerate(zip(heads, labels)):
        out_heads[position[j] - 1] = int(position[h - 1]) if h > 0 else 0
        out_labels[position[j] - 1] = l
    before = np.searchsorted(position, np.arange(1, n + 1), side="left") - 1  # the word before each token
    for i in set(range(1, n + 1)) - set(position.tolist()):
        b = before[i - 1]
        out_heads[i - 1] = int(position[b]) if b >= 0 else int(position[0])
    return out_heads, out_labels


def batches(lengths: Sequence[int], size: int) -> List[np.ndarray]:
    """Indices grouped into batches of similar length (less padding)."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i:i + size] for i in range(0, len(order), size)]
