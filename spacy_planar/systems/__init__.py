"""Transition systems, one module per paper table, over the shared batched
core (``state.py``); their oracles are in ``oracles/``, and ``catalog.py``
describes each system once (its name, class, oracle and options)."""
from .arc_eager import ArcEager
from .base import TransitionSystem, Tree
from .planar import Planar
from .swap import Swap
from .top_down import TopDown
from .two_planar import TwoPlanar

__all__ = ["ArcEager", "Planar", "TwoPlanar", "Swap", "TopDown", "TransitionSystem", "Tree"]
