"""Transition systems, one module per paper table, over the shared batched
core (``state.py``); their oracles are in ``oracles/``."""
from typing import Sequence

from ..errors import Errors, UserError
from .arc_eager import ArcEager
from .base import TransitionSystem, Tree
from .planar import Planar
from .swap import Swap
from .top_down import TopDown
from .two_planar import TwoPlanar

# the systems by the names the command line and the tests give them
SYSTEMS = {cls.name: cls for cls in (ArcEager, Planar, TwoPlanar, Swap, TopDown)}


def make_system(name: str, labels: Sequence[str], root_label: str = "root", **options) -> TransitionSystem:
    """A transition system by name (arc-eager, planar, 2-planar, swap,
    top-down) with its options (arc-eager and top-down: ``encoding``; swap:
    ``oracle``)."""
    if name not in SYSTEMS:
        raise UserError(Errors.E070.format(name=name, options=", ".join(SYSTEMS)))
    return SYSTEMS[name](labels, root_label, **options)


def system_for_trees(name: str, trees: Sequence[Tree], root_label: str = "root", **options) -> TransitionSystem:
    """A system whose labels are those of ``trees`` as the oracle will see them
    (arc-eager: with the pseudo-projective decorations, every one of them)."""
    probe = make_system(name, [], root_label, **options)
    labels = sorted({label for h, l in trees for label in probe.prepare_tree(h, l)[1]})
    return make_system(name, labels, root_label, **options)


__all__ = ["ArcEager", "Planar", "TwoPlanar", "Swap", "TopDown", "TransitionSystem", "SYSTEMS", "make_system",
           "system_for_trees"]
