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


# no colour codes where the output is not a terminal (a pipe, a file, a log) or NO_COLOR asks
# (no-color.org): wasabi reads this when its printers are made, on import; what it colours anyway
# is taken out on the way (PlainText)
if os.environ.get("NO_COLOR") or not sys.stdout.isatty():
    os.environ.setdefault("ANSI_COLORS_DISABLED", "1")
    sys.stdout = PlainText(sys.stdout)
if os.environ.get("NO_COLOR") or not sys.stderr.isatty():
    sys.stderr = PlainText(sys.stderr)

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
