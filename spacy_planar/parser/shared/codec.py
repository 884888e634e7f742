"""A tree's way into a parser's system and back out, in one object (``TreeCodec``), used alike by
training, oracle runs, parsing, k-best parses and the laboratory's evaluations, by both parsers
(the graph-based parser's system is a ``GraphEncoding``).

In: the gold tree in UD terms -> Nilsson's (2007) transforms, in the order given
(``trees.transforms``) -> the system's own encoding (``prepare_tree``: arc-eager's
pseudo-projective labels, Nivre & Nilsson 2005; the planar systems' planes) -> label ids.

Out: the parser's tree in the system's terms -> the system's decoding (``decode_tree``:
deprojectivize) -> the transforms' inverses, the last first -> one root where the parser
builds one -> a tree -> labels without the encodings' marks. What has to be repaired on the
way out (never expected) is counted by its code and reported (``repairs.py``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import List, NamedTuple, Optional, Protocol, Sequence, Tuple

import numpy as np

from spacy_planar.defaults import EXTRA_ROOT_LABEL, ROOT_LABEL
from spacy_planar.parser.shared import repairs
from spacy_planar.trees.algorithms import Tree, are_trees, one_root
from spacy_planar.trees.pseudoproj import undecorate
from spacy_planar.trees.transforms import apply_transforms, restored


class Output(NamedTuple):
    """``TreeCodec.output_trees``' answer: every unit's tree concatenated (heads 1-based within
    its unit, UD labels), the units' lengths, per unit its beam's final states in UD terms (or
    None) and whether its tree was repaired."""
    heads: np.ndarray
    labels: List[str]
    lengths: List[int]
    alternatives: List[Optional[List]]
    repaired: List[bool]

    def units(self):
        """Per unit: (heads, labels, repaired), in the order of the units."""
        bounds = np.cumsum([0] + list(self.lengths))
        return [(self.heads[a:b].tolist(), self.labels[a:b], fixed)
                for a, b, fixed in zip(bounds[:-1], bounds[1:], self.repaired)]


class Encoding(Protocol):
    """What a codec asks of the parser's system: a transition system (``systems/``) or the
    graph-based parser's ``GraphEncoding``; ``labelled`` asks a transition system's ``label_tree``,
    a codec without settings its ``root_label``."""

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree: ...

    def decode_tree(self, heads: List[int], labels: List[str]) -> Tree: ...


@dataclass
class CodecSettings:
    """What a codec reads of its component's settings, for a system used on its own (the lab's
    oracle runs): no tree transforms, UD's root label, one root."""
    root_label: str = ROOT_LABEL
    extra_root_label: str = EXTRA_ROOT_LABEL
    tree_transforms: List[str] = field(default_factory=list)
    single_root: bool = True


class TreeCodec:
    """The way in and out of ``system`` under ``settings`` (its transforms, root labels, single root:
    a component's settings, ``transition/settings.py``'s ``ParserSettings`` or the biaffine's ``GraphSettings``)."""

    def __init__(self, system: Encoding, settings=None):
        self.system = system
        self.settings = CodecSettings(root_label=system.root_label) if settings is None else settings

    # --- in ------------------------------------------------------------------------------
    def transformed(self, tree: Tree) -> Tree:
        """A gold tree through the tree transforms (what the parser is trained to build, in UD's labels)."""
        transforms = self.settings.tree_transforms
        return apply_transforms(transforms, *tree) if transforms else (list(tree[0]), list(tree[1]))

    def encode(self, tree: Tree) -> Tree:
        """A transformed gold tree as the system derives it (``prepare_tree``)."""
        return self.system.prepare_tree(*tree)

    def labelled(self, tree: Tree) -> Tuple[List[int], List[int]]:
        """A transformed gold tree encoded, its labels as the system's ids (the oracles' input)."""
        return self.system.label_tree(self.encode(tree))

    # --- out -----------------------------------------------------------------------------
    def from_system(self, tree: Tree) -> Tree:
        """A parsed tree in the system's terms brought back to the transforms' terms (the
        system's decoding alone: deprojectivize), what the parser was trained to build."""
        heads, labels = self.system.decode_tree(list(tree[0]), list(tree[1]))
        return list(heads), list(labels)

    def restored(self, tree: Tree) -> Tuple[Tree, bool]:
        """A tree in the transforms' terms brought back to UD (their inverses, the last first),
        and whether that left a tree (where not: the tree as it was, labels cleaned)."""
        if not self.settings.tree_transforms:
            return (list(tree[0]), list(tree[1])), True
        return restored(self.settings.tree_transforms, *tree)

    def decode(self, tree: Tree, found: Counter) -> Tree:
        """One parsed tree (the system's terms) back to UD, repairs counted in ``found``:
        an inverse transform that would not leave a tree keeps the tree as parsed
        (``INVERSE_BROKE``); extra roots under ``single_root`` go under the largest part's
        root (``EXTRA_ROOTS``). Labels keep the pseudo-projective marks until ``output_trees``."""
        s = self.settings
        (heads, labels), ok = self.restored(self.from_system(tree))  # the last transform first
        found[repairs.INVERSE_BROKE] += not ok
        if s.single_root and sum(1 for h in heads if h == 0) > 1:
            found[repairs.EXTRA_ROOTS] += 1
            heads, labels = one_root(heads, labels, s.root_label, s.extra_root_label)
        return heads, labels

    def decode_alternative(self, tree: Tree, found: Counter) -> Optional[Tree]:
        """A beam's other final tree in UD terms as ``decode`` brings back the best (its inverse
        that would not leave a tree: as parsed, ``ALTERNATIVE_AS_PARSED``), labels undecorated;
        None (``ALTERNATIVE_LEFT_OUT``) where it is not a tree with one root under ``single_root``."""
        (heads, labels), ok = self.restored(self.from_system(tree))
        found[repairs.ALTERNATIVE_AS_PARSED] += not ok
        if not are_trees(np.asarray(heads, dtype=np.int64), [len(heads)])[0] or (
                self.settings.single_root and sum(1 for h in heads if h == 0) != 1):
            found[repairs.ALTERNATIVE_LEFT_OUT] += 1
            return None
        return list(heads), [undecorate(label) for label in labels]

    def output_trees(self, predictions: List[List], name: str, repaired: Counter) -> "Output":
        """Every unit's tree (``parsing.Parsed``) in UD terms, concatenated: (heads, labels, lengths),
        per unit its beam's final states in UD terms (None where ``n_best`` is 1) and whether its
        tree was repaired on the way out; a unit that is not a tree becomes a flat one
        (``NOT_A_TREE``). Every repair is added to ``repaired`` and reported (``repairs.report``)."""
        s = self.settings
        found: Counter = Counter()
        trees, alternatives, fixed = [], [], []
        for doc_units in predictions:
            for unit in sorted(doc_units, key=lambda unit: unit.span):
                before = sum(found.values())
                found[repairs.FELL_OUT] += unit.fell_out
                trees.append(self.decode(unit.tree, found))
                fixed.append(sum(found.values()) > before)
                alternatives.append(None if unit.finals is None else self.alternatives(unit.finals, found))
        lengths = [len(h) for h, _ in trees]
        heads = np.asarray([h for tree, _ in trees for h in tree], dtype=np.int64)
        labels = [label for _, tree_labels in trees for label in tree_labels]
        bounds = np.cumsum([0] + lengths)
        broken = np.flatnonzero(~are_trees(heads, lengths)) if lengths else []
        found[repairs.NOT_A_TREE] += len(broken)
        for u in broken:
            a, b = bounds[u], bounds[u + 1]
            flat_heads, flat_labels = repairs.flat_tree(int(b - a), s.root_label, s.extra_root_label)
            heads[a:b] = flat_heads
            labels[a:b] = flat_labels
            alternatives[u] = None
            fixed[u] = True
        repairs.report(found, repaired, name, len(lengths), s.extra_root_label, s.tree_transforms)
        return Output(heads, [undecorate(label) for label in labels], lengths, alternatives, fixed)

    def alternatives(self, finals: Sequence, found: Counter) -> List:
        """A beam's final states (total, tree, the words' move log-probabilities) in UD terms
        (the transforms move no word, so the log-probabilities stay), those that are no trees
        left out."""
        out = []
        for total, tree, local in finals:
            decoded = self.decode_alternative(tree, found)
            if decoded is not None:
                out.append((total, decoded, local))
        return out
