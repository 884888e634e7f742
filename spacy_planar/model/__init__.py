"""The parser's Thinc model (``spacy-planar.PlanarParserModel.v1``)."""
from .parser_model import StateScorer, build_planar_parser_model

__all__ = ["StateScorer", "build_planar_parser_model"]
