"""The top-down system's static oracle (``systems/top_down.py``; Hayashi et
al. 2012, section 3 and the completeness proof of section 4).

On a projective(ized) tree with one root, in the state ⟨i, h, j, S⟩:

    SCAN       if i = h;
    PRED(k)    if i < h: k the leftmost left dependent of h with i ≤ k
               (children are predicted left to right; the words from i to k
               are k's left descendants);
    PRED(k)    if h < i and h has a dependent k with i ≤ k < j: the leftmost;
    COMP_l     otherwise (h's subtree is complete), l the gold label of h.

It derives the gold tree in exactly 3n steps. No dynamic oracle yet, so
this system trains with the static oracle only.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from spacy_planar.parser.oracles.base import Oracle, select
from spacy_planar.parser.systems.state import INT, LEFT, PRED, RIGHT, States
from spacy_planar.parser.systems.top_down import SCAN


class TopDownOracle(Oracle):

    def static(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """(moves, labels): for PRED the "label" is the predicted word
        (``TopDown.action_of``)."""
        i, h, r = self.system.ihr(st)
        k = np.arange(st.T)[None, :]
        child = (self.heads == h[:, None]) & (k >= i[:, None])
        left = child & (k < h[:, None])
        right = child & (k <= r[:, None])
        first_left = np.where(left.any(axis=1), left.argmax(axis=1), -1)
        first_right = np.where(right.any(axis=1), right.argmax(axis=1), -1)
        scan = i == h
        predx = ~scan & (i < h)
        predy = ~scan & (h < i) & (first_right >= 0)
        s1 = st.s(1)
        moves = select([scan, predx, predy], [SCAN, PRED, PRED], np.where(h < s1, LEFT, RIGHT))
        labels = select([scan, predx, predy], [-1, first_left, first_right], st.at(self.labels, h))
        return moves.astype(INT), labels.astype(INT)

    def costs(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError("the top-down system has a static oracle only")
