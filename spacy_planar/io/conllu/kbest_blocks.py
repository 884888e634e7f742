"""What the k-best output adds to CoNLL-U: a sentence's next best parses as
blocks ``ID/2`` ... after it, and each word's arc probability as
``HeadProb`` in MISC."""
from __future__ import annotations

import re
from typing import List, Optional


def alternative_comments(comments: List[str], j: int) -> List[str]:
    """A sentence's comments for its j-th best parse: ``sent_id`` as ``ID/j``;
    no ``# newdoc`` or ``# newpar`` (the first block opened them: an
    alternative opens nothing, and the validator would read a paragraph
    break after a word that said ``SpaceAfter=No``)."""
    out = [f"{line}/{j}" if line.startswith("# sent_id =") else line for line in comments
           if not line.startswith(("# newdoc", "# newpar"))]
    return out if any(line.startswith("# sent_id =") for line in comments) else [f"# sent_id = ?/{j}"] + out


def with_misc(misc: str, name: str, value: str) -> str:
    """MISC with ``name=value`` added (in UD's order: attributes sorted)."""
    items = [item for item in misc.split("|") if item and item != "_" and not item.startswith(f"{name}=")]
    return "|".join(sorted(items + [f"{name}={value}"], key=str.lower))


_PROBABILITY = re.compile(r"[0-9.]+")


def head_prob(misc: str) -> Optional[float]:
    """A word's ``HeadProb`` from its MISC (what ``with_misc`` writes for
    ``parse --confidence``); None where it has none."""
    value = next((item[len("HeadProb="):] for item in misc.split("|") if item.startswith("HeadProb=")), None)
    return float(value) if value is not None and _PROBABILITY.fullmatch(value) else None
