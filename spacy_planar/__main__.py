"""The ``spacy-planar`` command line (also ``python -m spacy_planar``): the user's commands
(``cli/``) and the laboratory's (``lab/``, ``spacy-planar lab ...``)."""
import sys
import traceback

import typer

from spacy_planar.cli import app
from spacy_planar.lab import analyse, anchors, bench, compare, search, stacks, stanza  # noqa: F401  (the lab's commands)


def main() -> None:
    """Run the app. Bad input exits 1 with one line (``_app.OneLineErrors``),
    a usage error 2 with the usage (click's convention), and an internal
    error 2 with its traceback."""
    try:
        app()
    except SystemExit:
        raise
    except Exception:  # an internal error, not the user's input
        traceback.print_exc()
        typer.secho("\u2718 internal error (the traceback above)", fg="red", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
