"""The field's own tools, from UD's ``udtools``: the CoNLL 2018 shared
task's scorer (``udtools.udeval``) and the UD validator
(``udtools.Validator``). Our figures are the field's figures where the
field has one; ``metrics.py`` keeps what the official scorer lacks
(non-projective arcs, arc lengths, paired tests per sentence).

The official LAS compares universal relations only (``obl:arg`` counts as
``obl``); ``metrics.Scores``' LAS compares whole labels.
"""
from __future__ import annotations

import functools
import io
import threading
from pathlib import Path
from typing import Dict, Optional, Tuple

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import read_utf8

# the CoNLL 2018 metrics, in the scorer's order; F1 is accuracy over gold words
OFFICIAL = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX")
# how the system's tokens, words (multiword tokens split) and sentences match the gold's: 100 over gold words
SEGMENTATION = ("Tokens", "Words", "Sentences")
# the system columns each metric reads besides HEAD and DEPREL
METRIC_COLUMNS = {"UPOS": ("UPOS",), "XPOS": ("XPOS",), "UFeats": ("FEATS",), "AllTags": ("UPOS", "XPOS", "FEATS"),
                  "Lemmas": ("LEMMA",), "MLAS": ("UPOS", "FEATS"), "BLEX": ("LEMMA",)}
_COLUMN_INDEX = {"LEMMA": 2, "UPOS": 3, "XPOS": 4, "FEATS": 5}


def system_columns(gold: Path, system: Path) -> Dict[str, str]:
    """Per column a metric reads (UPOS, XPOS, FEATS, LEMMA): ``predicted``,
    ``blank`` (``_`` on every word) or ``copied`` (the same as the gold
    file's on every word of a file over the same words: what ``parse
    --keep-input-columns`` writes where the pipeline predicts nothing)."""
    def columns(path: Path):
        rows = [line.split("\t") for line in read_utf8(path).splitlines()
                if line and not line.startswith("#") and "\t" in line and line.split("\t", 1)[0].isdigit()]
        return {name: [r[i] if len(r) > i else "_" for r in rows] for name, i in _COLUMN_INDEX.items()}

    g, s = columns(gold), columns(system)
    out = {}
    for name in _COLUMN_INDEX:
        if all(v == "_" for v in s[name]):
            out[name] = "blank"
        elif s[name] == g[name] and any(v != "_" for v in g[name]):
            out[name] = "copied"
        else:
            out[name] = "predicted"
    return out


def scored_metrics(columns: Dict[str, str], scores: Dict[str, float]) -> Tuple[str, ...]:
    """The metrics that measure the system: those of ``SEGMENTATION`` below
    100 (its tokens, words or sentences are not the gold's: raw text), and
    those of ``OFFICIAL`` whose columns (``METRIC_COLUMNS``) it predicted."""
    return (tuple(m for m in SEGMENTATION if scores.get(m, 100.0) < 100.0)
            + tuple(m for m in OFFICIAL if all(columns[c] == "predicted" for c in METRIC_COLUMNS.get(m, ()))))


def several_roots(text: str) -> bool:
    """Whether a CoNLL-U text has a sentence with more than one root (HEAD 0)."""
    for block in text.split("\n\n"):
        roots = sum(1 for line in block.splitlines()
                    if "\t" in line and line.split("\t", 1)[0].isdigit() and line.split("\t")[6:7] == ["0"])
        if roots > 1:
            return True
    return False


def conll18_scores(gold: Path, system: Path) -> Tuple[Dict[str, float], bool]:
    """The CoNLL 2018 scorer's F1 (x 100) of each metric in ``SEGMENTATION``
    and ``OFFICIAL``, ``system`` against ``gold``, and whether the system
    file has sentences with more than one root: those are scored with the
    scorer's own ``multiple_roots_okay`` (each word's head as it is), which
    it otherwise refuses."""
    from udtools import udeval

    files, several = {}, False
    for name, path in (("gold", gold), ("system", system)):
        # as our reader does, a last sentence without its blank line is read (the scorer wants one)
        text = read_utf8(path).rstrip("\n") + "\n\n"
        several = name == "system" and several_roots(text)
        kind = {"multiple_roots_okay": True} if several else {}
        try:
            files[name] = udeval.load_conllu(io.StringIO(text), str(path), kind)
        except udeval.UDError as e:
            raise UserError(Errors.E043.format(path=path, reason=str(e).splitlines()[0])) from None
    try:
        scores = udeval.evaluate(files["gold"], files["system"])
    except udeval.UDError as e:
        raise UserError(Errors.E043.format(path=system, reason=str(e).splitlines()[0])) from None
    return {metric: 100 * scores[metric].f1 for metric in SEGMENTATION + OFFICIAL}, several


@functools.lru_cache(maxsize=None)
def _validator(lang: str, level: int):
    """udtools' Validator for ``lang`` at ``level``, made once: making one
    loads UD's lists (0.2 s); each ``validate_files`` starts a new state."""
    from udtools import Validator

    return Validator(lang=lang, level=level, max_store=0, output=None), threading.Lock()


def validate(path: Path, level: int = 2, lang: Optional[str] = None) -> Tuple[bool, str]:
    """The UD validator over ``path`` at ``level`` (1-5; ``lang``: the
    language's own lists from level 4, ``ud`` for none): whether it passed,
    and its report (each incident, then the counts per kind)."""
    report = io.StringIO()
    validator, lock = _validator(lang or "ud", level)
    with lock:  # the report goes where the validator's incident settings say
        validator.incfg["output"] = report
        try:
            state = validator.validate_files([str(path)])
        finally:
            validator.incfg["output"] = None
    return state.passed(), report.getvalue() + str(state)
