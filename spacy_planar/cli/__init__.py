"""The ``spacy-planar`` command line (also ``python -m spacy_planar``): the
apps are in ``_app.py``, each command in its module."""
import sys
import traceback

import typer

from . import convert, analyse, evaluate, init_config, train, compare, parse, render, stacks, search, bench, vectors, charlm, package, calibrate  # noqa: F401,I001,E501  (registers the commands, in this order)
from ._app import app


def main() -> None:
    """Run the app. Bad input exits 1 with one line (``_app.fail``), a usage
    error 2 with the usage (click's convention), and an internal error 2
    with its traceback."""
    try:
        app()
    except SystemExit:
        raise
    except Exception:  # an internal error, not the user's input
        traceback.print_exc()
        typer.secho("\u2718 internal error (the traceback above)", fg="red", err=True)
        sys.exit(2)


__all__ = ["app", "main"]
