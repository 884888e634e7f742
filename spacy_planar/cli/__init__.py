"""The ``spacy-planar`` command line (also ``python -m spacy_planar``): the
apps are in ``_app.py``, each command in its module."""
from . import convert, analyse, evaluate, init_config, train, parse, render, stacks, search, bench  # noqa: F401,I001  (registers the commands, in this order)
from ._app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
