"""k-best parses, arc probabilities and their calibration, on plain head / label arrays.

A beam (``beam.Beam``) ends with up to ``beam_width`` final states per
sentence, each with its total: the sum of the log-probabilities of its
actions under the model's softmax over the valid actions. Two derivations may
give the same tree (spurious ambiguity, e.g. when arc-eager reduces); a tree
is represented by its best derivation. The beam's distribution over its
distinct trees is then a softmax of those totals, divided by a temperature
``T`` (Guo et al. 2017's temperature scaling, applied to whole derivations):
``P(tree) = exp(total / T) / sum exp(total' / T)``. A word's beam marginal
is the probability mass of the trees in which the word has the head and the
label of the best tree.

A beam's marginals are over-confident and coarse: where the beam's trees all
agree (two arcs in three), an arc gets 1 whatever the model's doubt about
states the beam did not keep. Two more signals come from the moves of the
best derivation: the probability of the move that gave the word its head
(``beam.Beam`` records it), and the sentence's geometric mean of those
(a sentence-level doubt). A word's confidence (``arc_confidence``) is
``marginal * p_move * sqrt(geometric mean)``; cross-validated on the dev
splits of two treebanks for five systems it ranked the arcs better than any
of its parts (docs/decisions.md, 2026-11-26). It is calibrated on dev
(``fit_calibration``, stored with the model by ``spacy-planar calibrate``):
the temperature, and an isotonic map from confidence to probability
(Zadrozny & Elkan 2002), fitted to whether each arc of the best dev trees
is right. The mapped value is ``Token._.head_prob``.

Heads are 1-based within a sentence, 0 for the root, as in CoNLL-U.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.defaults import TEMPERATURE
from spacy_planar.errors import Errors, UserError
from spacy_planar.eval.metrics import calibration, same_arcs

Parse = Tuple[float, List[int], List[str]]  # (probability, heads, labels)




def distinct_parses(finals: Sequence[Tuple],
                    temperature: float = TEMPERATURE) -> List[Parse]:
    """The distinct trees of a beam's final states ``(total, (heads,
    labels), ...)``, each with its probability under the beam's distribution at
    ``temperature``, most probable first (ties: the beam's order). The first
    is the beam's best derivation's tree."""
    order = sorted(range(len(finals)), key=lambda i: -finals[i][0])
    seen = set()
    totals, trees = [], []
    for i in order:
        total, (heads, labels) = finals[i][:2]
        key = (tuple(heads), tuple(labels))
        if key not in seen:
            seen.add(key)
            totals.append(total)
            trees.append((list(heads), list(labels)))
    if not trees:
        return []
    p = _softmax(np.asarray(totals, dtype=np.float64), temperature)
    return [(float(prob), heads, labels) for prob, (heads, labels) in zip(p, trees)]


def _softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    t = logits / max(float(temperature), 1e-6)
    p = np.exp(t - t.max())
    return p / p.sum()


def arc_probabilities(parses: Sequence[Parse], heads: Sequence[int], labels: Sequence[str]) -> np.ndarray:
    """Per word: the probability mass of the parses in which it has the head
    and the label it has in (``heads``, ``labels``)."""
    out = np.zeros(len(heads))
    for prob, h, l in parses:
        out += prob * same_arcs(h, l, heads, labels)
    return np.minimum(out, 1.0)


def arc_confidence(parses: Sequence[Parse], heads: Sequence[int], labels: Sequence[str],
                   move_logp: Sequence[float]) -> np.ndarray:
    """Per word of the tree (``heads``, ``labels``; the best parse) the score
    that the calibration maps to a probability: its beam marginal
    (``arc_probabilities``) times the probability of the move that gave it
    its head (``move_logp``: their logs, from the best derivation) times the
    square root of the sentence's geometric mean of those."""
    logp = np.minimum(np.asarray(move_logp, dtype=np.float64), 0.0)
    if not len(logp):
        return np.zeros(0)
    return arc_probabilities(parses, heads, labels) * np.exp(logp + logp.mean() / 2)


def at_temperature(parses: Sequence[Parse], temperature: float) -> List[Parse]:
    """Parses with their probabilities at another temperature: P ** (1 / T),
    renormalised (the beam's totals divided by T, as ``distinct_parses``)."""
    if not parses:
        return []
    q = _softmax(np.log(np.maximum([p for p, _, _ in parses], 1e-300)), temperature)
    return [(float(prob), h, l) for prob, (_, h, l) in zip(q, parses)]


def isotonic(x: np.ndarray, y: np.ndarray, points: int = 64) -> Tuple[List[float], List[float]]:
    """The increasing step function closest to (x, y) in squared error (pool
    adjacent violators; Zadrozny & Elkan 2002), as at most ``points``
    (x, y) knots for ``np.interp``."""
    xs, inverse, counts = np.unique(np.asarray(x, dtype=np.float64), return_inverse=True, return_counts=True)
    ys = np.bincount(inverse, weights=np.asarray(y, dtype=np.float64)) / counts  # ties: one point, their mean
    values, weights, lefts, rights = [], [], [], []
    for xi, yi, wi in zip(xs, ys, counts):
        values.append(yi), weights.append(float(wi)), lefts.append(xi), rights.append(xi)
        while len(values) > 1 and values[-2] >= values[-1]:
            w = weights[-2] + weights[-1]
            v = (values[-2] * weights[-2] + values[-1] * weights[-1]) / w
            values[-2:], weights[-2:], rights[-2:] = [v], [w], [rights[-1]]
            lefts.pop()
    knots_x = [(a + b) / 2 for a, b in zip(lefts, rights)]
    if len(knots_x) > points:  # keep the knots where the function moves most
        keep = np.unique(np.linspace(0, len(knots_x) - 1, points).round().astype(int))
        knots_x, values = [knots_x[i] for i in keep], [values[i] for i in keep]
    return [float(v) for v in knots_x], [float(v) for v in values]


# what ``arc_confidence`` computes, stored with each fitted map: a map fitted to another confidence is refused
CONFIDENCE = "marginal x move x sqrt(sentence's moves)"


def uncalibrated() -> dict:
    """The calibration of a parser not calibrated: temperature 1, no map (the
    confidences as they are); what ``spacy-planar calibrate`` replaces."""
    return {"temperature": TEMPERATURE, "x": [], "y": []}


def calibrated(scores: np.ndarray, calibration: Optional[dict]) -> np.ndarray:
    """Arc confidences (``arc_confidence``) through a fitted map
    (``fit_calibration``); as they are without one. A map fitted to another
    confidence than ``CONFIDENCE`` is a user error (E110)."""
    if not calibration or not calibration.get("x"):
        return np.asarray(scores, dtype=np.float64)
    found = calibration.get("confidence")
    if found != CONFIDENCE:
        raise UserError(Errors.E110.format(found=found, expected=CONFIDENCE))
    return np.interp(scores, calibration["x"], calibration["y"])


Held = Tuple[Sequence[Parse], Sequence[float], Sequence[int], Sequence[str]]


def fit_calibration(sentences: Sequence[Held],
                    temperatures: Sequence[float] = (0.125, 0.25, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)) -> dict:
    """The calibration of the arc probabilities on held-out parses: for each
    temperature, the confidences (``arc_confidence``) of each sentence's
    best tree's arcs against whether each arc is right (head and label), an
    isotonic map fitted to them; the temperature whose mapped probabilities
    have the lowest Brier score. ``sentences``: (every distinct parse of the
    beam at T = 1, the best derivation's move log-probabilities, gold heads,
    gold labels). Returns {"temperature", "x", "y", "confidence"
    (``CONFIDENCE``), "ece_raw" (the
    confidences at T = 1, unmapped), "ece" (mapped, on these sentences)}."""
    sentences = [s for s in sentences if s[0]]
    if not sentences:
        return {**uncalibrated(), "ece_raw": None, "ece": None}
    best: Optional[dict] = None
    for t in temperatures:
        x, y = _scores_and_truth(sentences, t)
        kx, ky = isotonic(x, y)
        mapped = np.interp(x, kx, ky)
        brier = float(np.mean((mapped - y) ** 2))
        if best is None or brier < best["brier"]:
            best = {"temperature": float(t), "x": kx, "y": ky, "confidence": CONFIDENCE, "brier": brier,
                    "ece": calibration(mapped, y).ece}
    best["ece_raw"] = calibration(*_scores_and_truth(sentences, TEMPERATURE)).ece
    return best


def _scores_and_truth(sentences: Sequence[Held], temperature: float) -> Tuple[np.ndarray, np.ndarray]:
    """The arcs of each sentence's best tree: their confidences at
    ``temperature``, and 1.0 where the arc (head and label) is the gold one."""
    raw, right = [], []
    for parses, move_logp, g_heads, g_labels in sentences:
        scaled = at_temperature(parses, temperature)
        _, heads, labels = scaled[0]
        raw.append(arc_confidence(scaled, heads, labels, move_logp))
        right.append(same_arcs(heads, labels, g_heads, g_labels))
    return np.concatenate(raw), np.concatenate(right).astype(np.float64)
