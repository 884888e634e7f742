"""Registered functions: the transition systems, selectable in a config.

``registry.transition_systems`` is a custom spaCy registry (like
spacy-transformers' ``span_getters``); each function returns the system's
class configured with its options (:class:`Configured`), which the
component calls with the labels once it knows them::

    [components.planar_parser.transition_system]
    @transition_systems = "spacy-planar.two_planar.v1"
"""
from __future__ import annotations

from typing import Sequence

import catalogue
from spacy.util import registry

from ..pseudoproj import check_encoding
from .arc_eager import ArcEager
from .base import TransitionSystem
from .planar import Planar
from .swap import Swap, check_oracle
from .top_down import TopDown
from .two_planar import TwoPlanar

if not hasattr(registry, "transition_systems"):
    registry.transition_systems = catalogue.create("spacy", "transition_systems", entry_points=True)


class Configured:
    """A transition system class with the options a config gave it; called
    with the labels it returns the system."""

    def __init__(self, cls: type, **options):
        self.cls = cls
        self.options = options

    def __call__(self, labels: Sequence[str], root_label: str = "root", **learned) -> TransitionSystem:
        """The system, with what training learned (``features``,
        ``label_features``, top-down's ``first``) passed to its constructor."""
        return self.cls(labels, root_label, **self.options, **learned)

    def to_dict(self) -> dict:
        return {"name": self.cls.name, **self.options}

    def __repr__(self) -> str:
        return f"Configured({self.cls.__name__}, {self.options})"


@registry.transition_systems("spacy-planar.arc_eager.v1")
def arc_eager(encoding: str = "head+path") -> Configured:
    """Arc-eager (Nivre 2003) on pseudo-projective trees (Nivre & Nilsson 2005),
    with the encoding baseline, head, path or head+path."""
    return Configured(ArcEager, encoding=check_encoding(encoding))


@registry.transition_systems("spacy-planar.planar.v1")
def planar() -> Configured:
    """The planar system (Gómez-Rodríguez & Nivre 2010, section 4)."""
    return Configured(Planar)


@registry.transition_systems("spacy-planar.two_planar.v1")
def two_planar() -> Configured:
    """The 2-planar system with two stacks and SWITCH (Gómez-Rodríguez & Nivre 2010, section 5)."""
    return Configured(TwoPlanar)


@registry.transition_systems("spacy-planar.swap.v1")
def swap(oracle: str = "lazy") -> Configured:
    """The swap system (Nivre 2009) trained with the eager or the lazy oracle
    (Nivre, Kuhlmann & Hall 2009)."""
    return Configured(Swap, oracle=check_oracle(oracle))


@registry.transition_systems("spacy-planar.top_down.v1")
def top_down(encoding: str = "head+path", pred_size: int = 5) -> Configured:
    """Top-down head-driven parsing (Hayashi et al. 2012) on pseudo-projective
    trees, with weighted prediction: needs the model's arc scorer
    (``arc_width``). ``pred_size``: with a beam, the predictions kept per
    state (section 5.2; 0: all)."""
    return Configured(TopDown, encoding=check_encoding(encoding), pred_size=int(pred_size))
