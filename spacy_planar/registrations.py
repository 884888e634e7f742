"""Registered functions: the transition systems, selectable in a config.

``registry.transition_systems`` is a custom spaCy registry (like
spacy-transformers' ``span_getters``); each function returns a
:class:`SystemSpec`, which the component turns into a transition system once
it knows the labels::

    [components.planar_parser.transition_system]
    @transition_systems = "spacy-planar.two_planar.v1"
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import catalogue
from spacy.util import registry

from .pseudoproj import check_encoding
from .systems import TransitionSystem, make_system

if not hasattr(registry, "transition_systems"):
    registry.transition_systems = catalogue.create("spacy", "transition_systems", entry_points=True)


@dataclass(frozen=True)
class SystemSpec:
    """Which transition system, with its options."""

    name: str
    oracle: str = "lazy"
    encoding: str = "head+path"

    def make(self, labels: Sequence[str], root_label: str) -> TransitionSystem:
        return make_system(self.name, labels, root_label, oracle=self.oracle, encoding=self.encoding)

    def to_dict(self) -> dict:
        return asdict(self)


@registry.transition_systems("spacy-planar.arc_eager.v1")
def arc_eager(encoding: str = "head+path") -> SystemSpec:
    """Arc-eager (Nivre 2003) on pseudo-projective trees (Nivre & Nilsson 2005),
    with the encoding baseline, head, path or head+path."""
    return SystemSpec("arc-eager", encoding=check_encoding(encoding))


@registry.transition_systems("spacy-planar.planar.v1")
def planar() -> SystemSpec:
    """The planar system (Gómez-Rodríguez & Nivre 2010, section 4)."""
    return SystemSpec("planar")


@registry.transition_systems("spacy-planar.two_planar.v1")
def two_planar() -> SystemSpec:
    """The 2-planar system with two stacks and SWITCH (Gómez-Rodríguez & Nivre 2010, section 5)."""
    return SystemSpec("2-planar")


@registry.transition_systems("spacy-planar.swap.v1")
def swap(oracle: str = "lazy") -> SystemSpec:
    """The swap system (Nivre 2009) trained with the eager or the lazy oracle
    (Nivre, Kuhlmann & Hall 2009)."""
    if oracle not in ("eager", "lazy"):
        raise ValueError(f"unknown swap oracle '{oracle}': expected eager or lazy")
    return SystemSpec("swap", oracle=oracle)
