"""The gold trees of the units of Examples, what every parser trains on, and what was left
out on the way."""
from __future__ import annotations

from collections import Counter
from typing import List, Optional, Tuple

import numpy as np
from spacy.attrs import ORTH
from spacy.training import Example

from spacy_planar.io.doc_trees import OUTSIDE, span_tree
from spacy_planar.parser.shared.codec import TreeCodec
from spacy_planar.parser.shared.units import units
from spacy_planar.trees.algorithms import Tree, tree_error

Bounds = Tuple[int, int]  # a unit: (start, end) token offsets in its Doc (not spaCy's Span)


class GoldTrees:
    """The gold trees of the units of Examples, and what was left out on the way: what every
    parser trains on (``PlanarParser``'s ``Trainer``, ``BiaffineParser``)."""

    def __init__(self, settings):
        self.settings = settings  # the root label: the component's settings
        self.skipped: Counter = Counter()
        self.outside = 0  # gold words whose head lies outside their predicted sentence (made its roots)

    def gold_trees(self, eg: Example, codec: TreeCodec) -> Optional[List[Tuple[Bounds, Tree]]]:
        """The gold tree of each unit of ``eg.predicted``, or None (counted in
        ``skipped``) where the reference has no parse or the tokens do not
        align. A head outside the unit makes its word a root (counted in
        ``outside``; ``update`` reports it, W095). The tree
        transforms are applied here, so that every way of training (and the
        labels' pass of ``initialize``) sees the transformed trees."""
        x, y, root = eg.predicted, eg.reference, self.settings.root_label
        if not y.has_annotation("DEP"):
            self.skipped["no gold parse"] += 1
            return None
        if len(x) == len(y) and np.array_equal(x.to_array(ORTH), y.to_array(ORTH)):
            out = []
            for start, end in units(x):
                h, d = span_tree(y, start, end)
                self.outside += sum(head == OUTSIDE for head in h)
                tree = ([max(head, 0) for head in h], [lab if head > 0 else root for head, lab in zip(h, d)])
                out.append(((start, end), tree))
        else:
            heads, deps = eg.get_aligned_parse(projectivize=False)
            if any(h is None for h in heads) or any(d is None for d in deps):
                self.skipped["tokenisation differs from the gold one"] += 1
                return None
            out = []
            for start, end in units(x):
                inside = [start <= heads[i] < end and heads[i] != i for i in range(start, end)]
                self.outside += sum(not (start <= heads[i] < end) for i in range(start, end))
                h = [heads[i] - start + 1 if ok else 0 for i, ok in zip(range(start, end), inside)]
                d = [deps[i] if ok else root for i, ok in zip(range(start, end), inside)]
                out.append(((start, end), (h, d)))
        for _, (h, _) in out:
            if tree_error(h) is not None:
                self.skipped["gold tree not well-formed"] += 1
                return None
        return [(u, codec.transformed(tree)) for u, tree in out]
