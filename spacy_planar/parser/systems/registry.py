"""The registry of the transition systems, selectable in a config.

``registry.transition_systems`` is a custom spaCy registry, made as spaCy
documents it (``registry.create``; a package adds systems under the entry
point group ``thinc_transition_systems``); each of its
functions (``catalog.py`` registers one per system) returns the system's
class configured with its options (:class:`Configured`), which the
component calls with the labels once it knows them::

    [components.planar_parser.transition_system]
    @transition_systems = "spacy-planar.two_planar.v1"
"""
from __future__ import annotations

from typing import Sequence

from spacy.util import registry

from spacy_planar.defaults import ROOT_LABEL
from spacy_planar.parser.systems.base import TransitionSystem

if not hasattr(registry,
               "transition_systems"):  # spaCy's way to add a registry (entry points: thinc_transition_systems)
    registry.create("transition_systems", entry_points=True)


class Configured:
    """A transition system class with the options a config gave it; called
    with the labels it returns the system."""

    def __init__(self, cls: type, **options):
        self.cls = cls
        self.options = options

    def __call__(self, labels: Sequence[str], root_label: str = ROOT_LABEL, **learned) -> TransitionSystem:
        """The system, with what training learned (``features``,
        ``label_features``, top-down's ``first``) passed to its constructor."""
        return self.cls(labels, root_label, **self.options, **learned)

    def to_dict(self) -> dict:
        return {"name": self.cls.name, **self.options}

    def __repr__(self) -> str:
        return f"Configured({self.cls.__name__}, {self.options})"
