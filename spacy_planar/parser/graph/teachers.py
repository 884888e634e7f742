"""What the graph-based parser learns from teachers (``train --teacher``; Kuncoro et al. 2016):
each training sentence's head distribution by a teacher (a callable given in ``[initialize.components.NAME]
teachers``, such as ``spacy-planar.ensemble_heads.v1``: an ensemble of trained pipelines of any of
our parsers), asked once at ``initialize`` and mixed with the gold heads' one-hot rows by
``weight``: the arc loss's target (``scoring.arc_loss``). The labels and the positional scorers
learn from the gold trees alone. The teachers are neither trained nor saved with the parser."""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

from spacy_planar.errors import Errors, UserError

Words = Tuple[str, ...]


class HeadTargets:
    """The teacher's head distributions of the sentences ``sentences`` (their words), mixed
    with the gold heads by ``weight`` (in (0, 1]: 1 the teacher's alone)."""

    def __init__(self, teacher: Callable[[List[Doc]], List[np.ndarray]], vocab, sentences: Iterable[Words],
                 weight: float, name: str):
        if not 0.0 < weight <= 1.0:
            raise UserError(Errors.E061.format(name=name, option="teacher_weight", value=weight))
        self.weight = weight
        known = [words for words in dict.fromkeys(sentences) if words]
        docs = [Doc(vocab, words=list(words), sent_starts=[True] + [False] * (len(words) - 1)) for words in known]
        self.taught: Dict[Words, np.ndarray] = {}
        for words, arcs in zip(known, teacher(docs)):
            if arcs.shape != (len(words), len(words) + 1):
                raise ValueError(f"the teacher gave {arcs.shape} for a sentence of {len(words)} words")
            self.taught[words] = arcs / np.maximum(arcs.sum(axis=1, keepdims=True), 1e-12)

    def __len__(self) -> int:
        return len(self.taught)

    def of(self, words: Sequence[str], heads: Sequence[int]) -> Optional[np.ndarray]:
        """The target of a sentence (its words and gold heads): (words, words + 1); None where the
        teacher was not asked about it."""
        taught = self.taught.get(tuple(words))
        if taught is None:
            return None
        if self.weight >= 1.0:
            return taught
        gold = np.zeros_like(taught)
        gold[np.arange(len(heads)), heads] = 1.0
        return self.weight * taught + (1.0 - self.weight) * gold
