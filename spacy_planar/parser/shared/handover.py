"""What a parser hands the decider after it (``ensembles/decider.py``, the ``parse_decider``
component of a joint pipeline): each sentence's parse, typed, held beside its Doc from the
parser's ``set_annotations`` until the decider takes it, as spaCy's ``tok2vec`` hands its output
to its listeners. Nothing here is written to the Doc (a DocBin or another process never sees
it); a Doc that is gone takes its parses with it (a weak map)."""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

Span = Tuple[int, int]  # a sentence's (start, end) tokens in its Doc


@dataclass(frozen=True)
class TreeParse:
    """A transition parser's parse of one sentence: its tree (heads 1-based within the sentence,
    0 for the root; UD labels), per token the probability of the move that gave it its head (the
    root's: of staying headless wherever a move could have attached it; ``driver.MoveRecorder``),
    its beam's k best parses as (probability, heads, labels) where it kept them (``n_best`` > 1),
    and whether its tree was repaired after the parse (``codec.TreeCodec.output_trees``: never
    expected; such a tree does not vote)."""
    span: Span
    heads: List[int]
    labels: List[str]
    move_probs: Optional[np.ndarray] = None
    parses: Optional[List[Tuple[float, List[int], List[str]]]] = None
    repaired: bool = False


@dataclass(frozen=True)
class GraphParse:
    """A graph-based parser's parse of one sentence: its own tree, and ``scores``, the batch's
    arc and label probabilities (``graph/votes.py``: ``ArcVotes``) at unit ``unit`` of them."""
    span: Span
    heads: List[int]
    labels: List[str]
    scores: Any
    unit: int
    repaired: bool = False


class Handover:
    """A parser's parses of each Doc, kept for the decider that listens (``listening``: set by
    the decider when it is built, naming itself); ``put`` by the parser, ``take`` (once) by the
    decider."""

    def __init__(self):
        self.listener: Optional[str] = None
        self._by_doc: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    @property
    def listening(self) -> bool:
        return self.listener is not None

    def listen(self, name: str) -> None:
        self.listener = name

    def put(self, doc, parses: Sequence) -> None:
        if self.listening:
            self._by_doc[doc] = list(parses)

    def take(self, doc) -> Optional[List]:
        """The Doc's parses, sorted by span, or None where the parser handed over none (it did not run on this
        Doc, or not since the Doc was copied or read back)."""
        return self._by_doc.pop(doc, None)

    def __len__(self) -> int:
        return len(self._by_doc)


def set_own_trees(doc, name: str, parses: Sequence) -> None:
    """A parser's own trees of a Doc's sentences, where a decider decides after it: ``Doc._.trees``
    (``extensions.py``) by the parser's name, per sentence (start, end, heads, labels)."""
    from spacy_planar.parser.shared.extensions import TREES_KEY

    own = doc.user_data.setdefault(TREES_KEY, {})
    own[name] = [(p.span[0], p.span[1], list(p.heads), list(p.labels)) for p in parses]
