"""What the graph-based parser learns from teachers (``train --teacher``; Kuncoro et al. 2016):
each training sentence's head distribution by a teacher (a callable given in ``[initialize.components.NAME]
teachers``, such as ``spacy-planar.ensemble_heads.v1``: an ensemble of trained pipelines of any of
our parsers), asked once at ``initialize`` and mixed with the gold heads' one-hot rows by
``weight``: the arc loss's target (``scoring.arc_loss``); an arc that a pseudo-projective parser
learns lifted (Nivre & Nilsson 2005) keeps its gold head alone. The labels and the positional
scorers learn from the gold trees alone. The teachers are neither trained nor saved with the parser."""
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

    def of(self, words: Sequence[str], heads: Sequence[int], kept: Optional[Sequence[bool]] = None
           ) -> Optional[np.ndarray]:
        """The target of a sentence (its words and the heads the parser learns): (words, words + 1);
        None where the teacher was not asked about it. ``kept``: the words whose head the parser
        learns is their tree's (the teacher's heads are of the trees as they are); the others
        (an arc lifted by the pseudo-projective encoding) learn their gold head alone."""
        taught = self.taught.get(tuple(words))
        if taught is None:
            return None
        gold = np.zeros_like(taught)
        gold[np.arange(len(heads)), heads] = 1.0
        out = self.weight * taught + (1.0 - self.weight) * gold
        if kept is not None:
            lifted = ~np.asarray(kept, dtype=bool)
            out[lifted] = gold[lifted]
        return out
