"""The parsers, siblings over what they share: the transition-based ``planar_parser``
(``transition/``) over its systems (``systems/``, one module per paper table) and their oracles
(``oracles/``), described once each in ``transition/catalog.py``; the graph-based ``biaffine_parser``
(``graph/``); what both use (``shared/``); several parsers as one (``ensembles/``). Importing it
registers the factories."""
from spacy_planar.parser.ensembles.component import PipelineEnsemble, make_planar_ensemble
from spacy_planar.parser.ensembles.decider import ParseDecider, make_parse_decider
from spacy_planar.parser.graph.component import BiaffineParser, make_biaffine_parser
from spacy_planar.parser.transition.factory import DEFAULT_CONFIG, make_planar_parser
from spacy_planar.parser.transition.pipe import PlanarParser

__all__ = ["DEFAULT_CONFIG", "BiaffineParser", "ParseDecider", "PipelineEnsemble", "PlanarParser",
           "make_biaffine_parser", "make_parse_decider", "make_planar_ensemble", "make_planar_parser"]
