"""Oracles, one module per system, apart from the systems they train."""
from typing import Sequence

from ..errors import Errors
from ..systems.base import TransitionSystem
from ..systems.state import States
from .arc_eager import ArcEagerOracle
from .base import PREFER, LabelledTree, Oracle
from .planar import PlanarOracle
from .swap import SwapOracle
from .top_down import TopDownOracle
from .two_planar import TwoPlanarOracle

ORACLES = (ArcEagerOracle, PlanarOracle, TwoPlanarOracle, SwapOracle, TopDownOracle)


def make_oracle(system: TransitionSystem, st: States, trees: Sequence[LabelledTree]) -> Oracle:
    """The oracle of ``system`` over the batch ``st`` of the gold ``trees``
    (prepared and labelled as ids: ``system.label_tree(system.prepare_tree(...))``)."""
    for cls in ORACLES:
        if type(system) is cls.system_class:
            return cls(system, st, trees)
    raise TypeError(Errors.E075.format(system=type(system).__name__))


__all__ = ["Oracle", "ArcEagerOracle", "PlanarOracle", "TwoPlanarOracle", "SwapOracle", "TopDownOracle", "ORACLES", "PREFER",
           "make_oracle"]
