"""The ``planar_parser`` component: factory, pipe, training."""
from .factory import DEFAULT_CONFIG, make_planar_parser
from .pipe import PlanarParser

__all__ = ["DEFAULT_CONFIG", "PlanarParser", "make_planar_parser"]
