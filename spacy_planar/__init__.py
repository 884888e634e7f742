"""spacy-planar: non-projective dependency parsers for spaCy, transition-based and graph-based.

What a Python user calls, beside ``spacy.load``: ``parse_words`` (a sentence given as
words, parsed as ``spacy-planar parse`` parses CoNLL-U), ``render`` (trees drawn
with their planes), ``treebanks`` and ``set_treebank`` (a pipeline trained on
several treebanks: which it knows, which one's style it writes). They are
imported when first used, so ``import spacy_planar`` stays light."""

__version__ = "0.3.0"

_PUBLIC = {"parse_words": "spacy_planar.corpus.files", "render": "spacy_planar.eval.render",
           "treebanks": "spacy_planar.model.treebanks",
           "set_treebank": "spacy_planar.model.treebanks"}


def __getattr__(name: str):
    if name in _PUBLIC:
        from importlib import import_module

        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'spacy_planar' has no attribute '{name}'")


__all__ = ["__version__", *_PUBLIC]
