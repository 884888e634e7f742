"""Oracles, one module per system, apart from the systems they train
(``catalog.py`` pairs each system with its oracle: ``make_oracle``)."""
from .arc_eager import ArcEagerOracle
from .base import PREFER, LabelledTree, Oracle
from .planar import PlanarOracle
from .swap import SwapOracle
from .top_down import TopDownOracle
from .two_planar import TwoPlanarOracle

__all__ = ["Oracle", "ArcEagerOracle", "PlanarOracle", "TwoPlanarOracle", "SwapOracle", "TopDownOracle", "PREFER",
           "LabelledTree"]
