"""What the parser repairs so that its output stays valid UD, in one place (as Stanza keeps its
decoding constraints in ``head_constraints``): each repair is never expected (every system builds
one tree with one root under ``single_root``), and each is counted by its warning's code
(``errors.Warnings``) in the component's ``repaired`` and reported (``errors.unexpected``: raised
under ``SPACY_PLANAR_DEBUG=1``, else a warning per batch), never done silently.
"""
from __future__ import annotations

from collections import Counter
from typing import Dict, List, Sequence

from spacy_planar.errors import Warnings, unexpected
from spacy_planar.trees.algorithms import Tree

# the repairs by code: what each does to the output
EXTRA_ROOTS = "W090"  # a tree's extra roots attached to the root of its largest part (``trees.one_root``)
NOT_A_TREE = "W091"  # a unit that is not a tree made a flat one (``flat_tree``)
FELL_OUT = "W093"  # a sentence that fell out of its beam parsed greedily (``driver.beam_parse``)
INVERSE_BROKE = "W096"  # the transforms' inverse would not leave a tree: the tree as parsed, labels cleaned
ALTERNATIVE_LEFT_OUT = "W097"  # a k-best alternative that is no tree with one root: left out
ALTERNATIVE_AS_PARSED = "W098"  # a k-best alternative whose inverse would not leave a tree: as parsed
REPAIRS: Dict[str, str] = {
    EXTRA_ROOTS: "extra roots attached", NOT_A_TREE: "not trees, made flat",
    FELL_OUT: "fell out of the beam, parsed greedily", INVERSE_BROKE: "inverse transforms kept as parsed",
    ALTERNATIVE_LEFT_OUT: "k-best alternatives left out", ALTERNATIVE_AS_PARSED: "k-best alternatives as parsed",
}


def flat_tree(n: int, root_label: str, label: str) -> Tree:
    """A flat tree of ``n`` words: the first the root, the others attached to it with ``label``."""
    return [0] + [1] * (n - 1), [root_label] + [label] * (n - 1)


def report(found: Counter, repaired: Counter, name: str, units: int, label: str, transforms: Sequence[str]) -> None:
    """Add ``found`` (repairs by code) to the component's ``repaired`` and
    report each kind found (``errors.unexpected``)."""
    for code in REPAIRS:
        if found[code]:
            repaired[code] += found[code]
            message = getattr(Warnings, code)
            unexpected(message.format(name=name, count=found[code], units=units, label=label,
                                      transforms=list(transforms), system=name, sentences=units))


def summary(repaired: Dict[str, int]) -> List[str]:
    """One line per kind of repair (code, count, what it did), the most first."""
    return [f"{code} {REPAIRS.get(code, '')}: {count}" for code, count in
            sorted(repaired.items(), key=lambda kv: (-kv[1], kv[0])) if count]
