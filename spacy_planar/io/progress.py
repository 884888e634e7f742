"""Progress of the long commands (``vectors``, ``parse``, ``parse-corpus``),
on a terminal and off one: tqdm's bar on a terminal's stderr; in a log (stderr
not a terminal) the same figures as a line at most every ``LOG_INTERVAL``
seconds, so that a run started by a script or a scheduler says what it is
doing rather than nothing for minutes."""
from __future__ import annotations

import io
import sys
from typing import Optional

from spacy.util import registry

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


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def training_estimate(elapsed: float, step: int, epoch: int, max_steps: int, max_epochs: int,
                      steps_per_epoch: Optional[float]) -> str:
    """What training has taken and about how long it has left: by steps
    where ``max_steps`` ends it first, by epochs where ``max_epochs`` does
    (once an epoch's steps are known); spaCy's patience can end it sooner."""
    said = f"elapsed {clock(elapsed)}"
    if max_epochs > 0 and not steps_per_epoch:
        return said + f", epoch {epoch + 1} of {max_epochs} (an estimate once an epoch is done)"
    shares = [step / (steps_per_epoch * max_epochs)] if max_epochs > 0 else []
    shares += [step / max_steps] if max_steps > 0 else []
    done = max(shares, default=0.0)  # whichever ends it first
    if 0 < done < 1:
        said += f", about {clock(elapsed * (1 - done) / done)} left (at most; {100 * done:.0f}% done)"
    return said


@registry.loggers("spacy-planar.ConsoleLogger.v1")
def console_logger(progress_bar: bool = False, console_output: bool = True, output_file: Optional[str] = None):
    """spaCy's console logger (``spacy.ConsoleLogger.v3``: its table, its
    optional bar to the next evaluation, its JSONL file) with a line under
    each row: the time since training began and about how long is left."""
    import time

    base = registry.loggers.get("spacy.ConsoleLogger.v3")(progress_bar="eval" if progress_bar else None,
                                                          console_output=console_output, output_file=output_file)

    def setup(nlp, stdout=sys.stdout, stderr=sys.stderr):
        log_step, finalize = base(nlp, stdout, stderr)
        training = nlp.config.get("training", {})
        max_steps, max_epochs = int(training.get("max_steps") or 0), int(training.get("max_epochs") or 0)
        start = time.perf_counter()
        seen = {"epoch": 0, "steps_per_epoch": None}

        def step(info):
            log_step(info)
            if info is None or not console_output:
                return
            epoch, n = int(info.get("epoch", 0)), int(info.get("step", 0))
            if epoch > seen["epoch"] and epoch > 0:
                seen["epoch"], seen["steps_per_epoch"] = epoch, n / epoch
            stdout.write("  " + training_estimate(time.perf_counter() - start, n, epoch, max_steps, max_epochs,
                                                  seen["steps_per_epoch"]) + "\n")
            stdout.flush()

        return step, finalize

    return setup
