"""The ``spacy-planar`` command line (also ``python -m spacy_planar``): the user's commands
(``cli/``) and the laboratory's (``lab/``, ``spacy-planar lab ...``)."""
import os
import re
import signal
import sys
import traceback

# ANSI's select-graphic-rendition codes: colour and bold
ANSI_CODES = re.compile(r"\x1b\[[0-9;]*m")


class PlainText:
    """A text stream that writes no colour codes: what wasabi (spaCy's printer) writes to a pipe or
    a file even where ANSI_COLORS_DISABLED is set (its dividers are always bold)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(ANSI_CODES.sub("", text))

    def __getattr__(self, name):
        return getattr(self._stream, name)


def plain_streams() -> None:
    """No colour codes where the output is not a terminal (a pipe, a file, a log) or NO_COLOR asks
    (no-color.org): the command line's streams take out what wasabi colours anyway (``PlainText``;
    its dividers are always bold). Called by ``main``, not on import: importing this module (``app``
    in a test or a notebook) replaces no stream."""
    if plain(sys.stdout) and not isinstance(sys.stdout, PlainText):
        sys.stdout = PlainText(sys.stdout)
    if plain(sys.stderr) and not isinstance(sys.stderr, PlainText):
        sys.stderr = PlainText(sys.stderr)


def plain(stream) -> bool:
    """Whether ``stream`` gets no colour: NO_COLOR is set or it is not a terminal."""
    return bool(os.environ.get("NO_COLOR")) or not stream.isatty()


# wasabi reads ANSI_COLORS_DISABLED when a printer is made, on import (the ones of spaCy and of
# this package), and wraps its lines counting the colour codes: set before those imports where the
# output is plain, so that lines wrap as they read; an environment variable, no stream replaced
if plain(sys.stdout):
    os.environ.setdefault("ANSI_COLORS_DISABLED", "1")

import typer  # noqa: E402

from spacy_planar.cli import app  # noqa: E402  (the laboratory's commands load when `lab` is called: LabGroup)


def interrupted(signum, frame) -> None:
    """SIGTERM (a scheduler's or ``kill``'s stop) as Ctrl-C: each command's own way of stopping
    (``train`` keeps model-best or removes what it made; ``parse-corpus`` says how far it got)."""
    raise KeyboardInterrupt


def main() -> None:
    """Run the app. Bad input exits 1 with one line (``_app.OneLineErrors``),
    a usage error 2 with the usage (click's convention), and an internal
    error 2 with its traceback."""
    plain_streams()
    signal.signal(signal.SIGTERM, interrupted)
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
