"""The parser: transition systems (``systems/``, one module per paper table) and their oracles
(``oracles/``), described once each in ``catalog.py``; the one driver loop (``driver.py``) and the
beam beside it (``beam.py``); k-best parses and their confidence (``kbest.py``); and the
``planar_parser`` component (``factory.py``, ``pipe.py``; how it learns: ``training.py``; how it
parses: ``parsing.py``); beside them the graph-based ``biaffine_parser`` (``biaffine.py``, what it
computes: ``graph.py``). Importing it registers the factories."""
from spacy_planar.parser.graph.component import BiaffineParser, make_biaffine_parser
from spacy_planar.parser.component.factory import DEFAULT_CONFIG, make_planar_parser
from spacy_planar.parser.component.pipe import PlanarParser

__all__ = ["DEFAULT_CONFIG", "BiaffineParser", "PlanarParser", "make_biaffine_parser", "make_planar_parser"]
