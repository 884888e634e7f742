"""The user's ``spacy-planar`` commands: the apps are in ``_app.py``, each command in its module;
importing this package registers them (``spacy_planar/__main__.py`` adds the laboratory's)."""
from spacy_planar.cli import download, convert, evaluate, init_config, train, parse, render, vectors, package, calibrate, upgrade  # noqa: F401,I001,E501  (registers the commands, in this order)
from spacy_planar.cli._app import app

__all__ = ["app"]
