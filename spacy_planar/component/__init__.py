"""The ``planar_parser`` component (factory, pipe, training), the other components of the UD
pipeline (``feature_morphologizer``, ``lexicon_lemmatizer``, ``multiword_tokens``) and the configs'
callbacks; importing it registers every factory."""
from .callbacks import make_leave_out_unlabelled
from .factory import DEFAULT_CONFIG, make_planar_parser
from .feats import make_feature_morphologizer
from .lemmatizer import make_lexicon_lemmatizer
from .pipe import PlanarParser
from .words import make_multiword_tokens

__all__ = ["DEFAULT_CONFIG", "PlanarParser", "make_feature_morphologizer", "make_leave_out_unlabelled",
           "make_lexicon_lemmatizer", "make_multiword_tokens", "make_planar_parser"]
