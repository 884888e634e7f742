"""spacy-planar: non-projective transition-based dependency parsers for spaCy."""

__version__ = "0.1.0"
