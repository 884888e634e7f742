"""Progress of the long commands (``vectors``, ``parse``, ``parse-corpus``),
on a terminal and off one: tqdm's bar on a terminal's stderr; in a log (stderr
not a terminal) the same figures as a line at most every ``LOG_INTERVAL``
seconds, so that a run started by a script or a scheduler says what it is
doing rather than nothing for minutes."""
from __future__ import annotations

import io
import sys
from typing import List, Optional

from spacy.util import registry

from spacy_planar.defaults import PARSER_FACTORIES

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


# the steps before the first evaluation after which an early estimate is written (spaCy's loop calls the logger
# every step, with nothing to log between evaluations)
EARLY_STEPS = (20, 100)


def early_estimate(elapsed: float, stepping: float, steps: int, max_steps: int, max_epochs: int) -> str:
    """After the first ``steps`` steps (``stepping`` seconds of the ``elapsed``), before any
    evaluation: their pace, and by it at least how long ``max_steps`` leaves (the batches grow as
    training goes: each later step takes longer; the evaluations add theirs)."""
    pace = stepping / steps
    said = f"elapsed {clock(elapsed)}, {pace:.2f} s a step over the first {steps}"
    if max_steps > 0:
        said += f"; at least {clock(pace * (max_steps - steps))} left for {max_steps:,} steps at this pace"
        if max_epochs > 0:
            said += f", or {max_epochs} epochs, whichever ends first"
    return said


class EarlyPace:
    """The steps spaCy's loop has logged (one call a step, ``None`` between evaluations) and, at
    ``EARLY_STEPS`` before any evaluation after step 0's, what ``early_estimate`` is given."""

    def __init__(self, start: float):
        self.start, self.step, self.stepping, self.evaluated = start, -1, None, False

    def tick(self, info) -> Optional[tuple]:
        import time

        self.step += 1  # the step this call ends (the first: step 0)
        now = time.perf_counter()
        if info is not None:
            self.stepping = self.stepping or now  # after step 0's evaluation
            self.evaluated = self.evaluated or int(info.get("step", 0)) > 0
            return None
        if self.step in EARLY_STEPS and not self.evaluated and self.stepping is not None:
            return now - self.start, now - self.stepping, self.step
        return None


# spaCy's score names, as the table heads them (within 100 columns with the UD pipeline's eight)
SHORT_NAMES = {"sents_f": "SENT_F", "pos_acc": "UPOS", "morph_acc": "FEATS", "tag_acc": "XPOS",
               "lemma_acc": "LEMMA", "dep_uas": "UAS", "dep_las": "LAS", "dep_np_f": "NP_F"}
# what the last training run in this process evaluated: (score, step) of each evaluation, its seconds; with
# "final" set (by ``spacy-planar train``), the summary at the end is left to that command's final evaluation
FINISHED: dict = {}


def table_columns(score_weights: dict) -> List[str]:
    """The table's score columns: each weighted score (``SHORT_NAMES``, else its name cut to 6)."""
    return [SHORT_NAMES.get(name, name.upper()[:6]) for name, weight in score_weights.items() if weight is not None]


@registry.loggers("spacy-planar.ConsoleLogger.v1")
def console_logger(progress_bar: bool = False, console_output: bool = True, output_file: Optional[str] = None):
    """spaCy's console logger (``spacy.ConsoleLogger.v3``: its optional bar to the next evaluation,
    its JSONL file) with a table of its own, within 100 columns (the parser's loss, each weighted
    score under a short name), a line under each row (the time since training began and about how
    long is left; before the first evaluation, ``EarlyPace``'s) and at the end the total time and
    the best evaluation, with a warning where that is the untrained pipeline's (step 0)."""
    import time

    from wasabi import Printer

    msg = Printer(no_print=True)
    base = registry.loggers.get("spacy.ConsoleLogger.v3")(progress_bar="eval" if progress_bar else None,
                                                          console_output=False, output_file=output_file)

    def setup(nlp, stdout=sys.stdout, stderr=sys.stderr):
        log_step, finalize = base(nlp, stdout, stderr)
        max_steps, max_epochs, weights = training_limits(nlp.config.get("training", {}))
        scored = [name for name, weight in weights.items() if weight is not None]
        parser = parser_name(nlp)
        widths = [3, 6, 9] + [6] * len(scored) + [6]
        start = time.perf_counter()
        seen = {"epoch": 0, "steps_per_epoch": None}
        pace = EarlyPace(start)
        final = FINISHED.pop("final", False)
        FINISHED.clear()
        FINISHED["checkpoints"] = []

        def write(text: str) -> None:
            if console_output:
                stdout.write(text + "\n")
                stdout.flush()

        write(msg.row(["E", "#", "LOSS"] + table_columns(weights) + ["SCORE"], widths=widths, spacing=2))
        write(msg.row(["-" * w for w in widths], widths=widths, spacing=2))

        def step(info):
            log_step(info)
            early = pace.tick(info)
            if early:
                write("  " + early_estimate(*early, max_steps, max_epochs))
            if info is None:
                return
            epoch, n = int(info.get("epoch", 0)), int(info.get("step", 0))
            FINISHED["checkpoints"] = [(float(score), int(at)) for score, at in info.get("checkpoints", [])]
            write(msg.row(table_row(info, parser, scored), widths=widths, spacing=2))
            if epoch > seen["epoch"] and epoch > 0:
                seen["epoch"], seen["steps_per_epoch"] = epoch, n / epoch
            write("  " + training_estimate(time.perf_counter() - start, n, epoch, max_steps, max_epochs,
                                           seen["steps_per_epoch"]))

        def done():
            finalize()
            FINISHED["seconds"] = time.perf_counter() - start
            if FINISHED["checkpoints"] and not final:
                for line in summary(FINISHED["checkpoints"], FINISHED["seconds"]):
                    write(line)

        return step, done

    return setup


def training_limits(training: dict) -> tuple:
    """A training config's max_steps and max_epochs (0: none) and its score weights."""
    max_steps, max_epochs = int(training.get("max_steps") or 0), int(training.get("max_epochs") or 0)
    return max_steps, max_epochs, dict(training.get("score_weights") or {})


def parser_name(nlp) -> Optional[str]:
    """The pipeline's first parser (``PARSER_FACTORIES``), whose loss the table shows; None without one."""
    return next((name for name in nlp.pipe_names if nlp.get_pipe_meta(name).factory in PARSER_FACTORIES), None)


def table_row(info: dict, parser: Optional[str], scored: List[str]) -> list:
    """An evaluation's row: epoch, step, the parser's loss (all losses' sum without one), each scored
    name in percent, the weighted score."""
    loss = info["losses"].get(parser, sum(info["losses"].values())) if info["losses"] else 0.0
    scores = info.get("other_scores") or {}
    row = [int(info.get("epoch", 0)), int(info.get("step", 0)), f"{float(loss):.2f}"]
    return row + [_percent(scores.get(name)) for name in scored] + [f"{float(info['score']):.2f}"]


def best_checkpoint(checkpoints) -> tuple:
    """The best (score, step) of a run's evaluations, the earliest of equal scores (spaCy's model-best)."""
    score, step = max((score, -step) for score, step in checkpoints)
    return score, -step


def summary(checkpoints, seconds: float, final: Optional[float] = None, detail: str = "") -> List[str]:
    """What training says at its end: its time and the evaluation model-best holds (with
    ``final``: model-last's score after the last step, ``detail`` after it), warning where
    that is step 0's."""
    from wasabi import Printer

    score, step = best_checkpoint(checkpoints)
    lines = [f"Training took {clock(seconds)}; model-best: step {step}, score {score:.2f}"]
    if final is not None:
        lines[0] = (f"Training took {clock(seconds)}; model-last (the last step) scored {final:.2f}{detail} on dev: "
                    + ("it is model-best" if final > score else f"model-best is step {step}'s, {score:.2f}"))
    if step == 0 and (final is None or final <= score):
        lines.append(Printer(no_print=True).warn(
            "model-best is the untrained pipeline (step 0): train longer (--training.max_epochs) or evaluate "
            "more often (--training.eval_frequency)"))
    return lines


def _percent(value) -> str:
    return "" if not isinstance(value, (int, float)) else f"{100 * value:.2f}"
