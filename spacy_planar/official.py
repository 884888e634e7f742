"""The field's own tools, from UD's ``udtools``: the CoNLL 2018 shared
task's scorer (``udtools.udeval``) and the UD validator
(``udtools.Validator``). Our figures are the field's figures where the
field has one; ``metrics.py`` keeps what the official scorer lacks
(non-projective arcs, arc lengths, paired tests per sentence).

The official LAS compares universal relations only (``obl:arg`` counts as
``obl``); ``metrics.Scores``' LAS compares whole labels.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Dict, Optional, Tuple

from .errors import Errors, UserError

# the CoNLL 2018 metrics, in the scorer's order; F1 is accuracy over gold words
OFFICIAL = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX")


def conll18_scores(gold: Path, system: Path) -> Dict[str, float]:
    """The CoNLL 2018 scorer's F1 (x 100) of each metric in ``OFFICIAL``,
    ``system`` against ``gold``."""
    from udtools import udeval

    files = {}
    for name, path in (("gold", gold), ("system", system)):
        # as our reader does, a last sentence without its blank line is read (the scorer wants one)
        text = Path(path).read_text(encoding="utf-8-sig").rstrip("\n") + "\n\n"
        try:
            files[name] = udeval.load_conllu(io.StringIO(text), str(path), {})
        except udeval.UDError as e:
            raise UserError(Errors.E043.format(path=path, reason=str(e).splitlines()[0])) from None
    try:
        scores = udeval.evaluate(files["gold"], files["system"])
    except udeval.UDError as e:
        raise UserError(Errors.E043.format(path=system, reason=str(e).splitlines()[0])) from None
    return {metric: 100 * scores[metric].f1 for metric in OFFICIAL}


def validate(path: Path, level: int = 2, lang: Optional[str] = None) -> Tuple[bool, str]:
    """The UD validator over ``path`` at ``level`` (1-5; ``lang``: the
    language's own lists from level 4, ``ud`` for none): whether it passed,
    and its report (each incident, then the counts per kind)."""
    from udtools import Validator

    report = io.StringIO()
    validator = Validator(lang=lang or "ud", level=level, max_store=0, output=report)
    state = validator.validate_files([str(path)])
    return state.passed(), report.getvalue() + str(state)
