"""Transition systems, one module per paper table, over the shared batched
core (``state.py``); their oracles are in ``oracles/``, and
``transition/catalog.py`` describes each system once (its name, class, oracle and options)."""
from spacy_planar.parser.systems.arc_eager import ArcEager
from spacy_planar.parser.systems.base import TransitionSystem, Tree
from spacy_planar.parser.systems.planar import Planar
from spacy_planar.parser.systems.swap import Swap
from spacy_planar.parser.systems.top_down import TopDown
from spacy_planar.parser.systems.two_planar import TwoPlanar

__all__ = ["ArcEager", "Planar", "TwoPlanar", "Swap", "TopDown", "TransitionSystem", "Tree"]
