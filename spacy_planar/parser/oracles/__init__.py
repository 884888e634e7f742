"""Oracles, one module per system, apart from the systems they train
(``transition/catalog.py`` pairs each system with its oracle: ``make_oracle``)."""
from spacy_planar.parser.oracles.arc_eager import ArcEagerOracle
from spacy_planar.parser.oracles.base import PREFER, LabelledTree, Oracle
from spacy_planar.parser.oracles.planar import PlanarOracle
from spacy_planar.parser.oracles.swap import SwapOracle
from spacy_planar.parser.oracles.top_down import TopDownOracle
from spacy_planar.parser.oracles.two_planar import TwoPlanarOracle

__all__ = ["Oracle", "ArcEagerOracle", "PlanarOracle", "TwoPlanarOracle", "SwapOracle", "TopDownOracle", "PREFER",
           "LabelledTree"]
