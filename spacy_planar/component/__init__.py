"""The ``planar_parser`` component: factory, pipe, training; the configs' callbacks."""
from .callbacks import make_leave_out_unlabelled
from .factory import DEFAULT_CONFIG, make_planar_parser
from .pipe import PlanarParser

__all__ = ["DEFAULT_CONFIG", "PlanarParser", "make_leave_out_unlabelled", "make_planar_parser"]
