"""Progress of the long commands (``vectors``, ``parse``, ``parse-corpus``),
on a terminal and off one: tqdm's bar on a terminal's stderr; in a log (stderr
not a terminal) the same figures as a line at most every ``LOG_INTERVAL``
seconds, so that a run started by a script or a scheduler says what it is
doing rather than nothing for minutes."""
from __future__ import annotations

import io
import sys

LOG_INTERVAL = 30.0  # seconds between two progress lines in a log


class _Lines(io.TextIOBase):
    """stderr for a log: each redraw tqdm writes (``\\r`` + the bar) becomes
    a line of its own."""

    def write(self, text: str) -> int:
        line = text.replace("\r", "").strip()
        if line:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()


def progress_bar(total=None, desc: str = "", unit: str = " words", enabled: bool = True, leave: bool = True,
                 **kwargs):
    """A tqdm bar in ``unit`` (scaled: k, M) on stderr: redrawn in place on
    a terminal, elsewhere a line every ``LOG_INTERVAL`` seconds of a run that
    lasts longer (and one at its end); none when not ``enabled``."""
    from tqdm import tqdm

    if not enabled:
        return tqdm(disable=True)
    common = dict(total=total, desc=desc or None, unit=unit, unit_scale=True, **kwargs)
    if sys.stderr.isatty():
        return tqdm(file=sys.stderr, leave=leave, **common)
    return tqdm(file=_Lines(), mininterval=LOG_INTERVAL, maxinterval=LOG_INTERVAL, delay=LOG_INTERVAL, ncols=100,
                ascii=True, leave=True, **common)
