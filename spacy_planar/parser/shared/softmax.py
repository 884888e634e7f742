"""The one masked softmax both parsers use, on any array module (numpy, cupy): a transition
parser's moves (the valid ones of a state; its beam, its training loss, its teachers, an
ensemble's mean), the biaffine's heads (each word's candidates) and labels."""
from __future__ import annotations

NO_SCORE = -1e9  # what an entry that is not a candidate scores before the softmax


def log_softmax(xp, scores, valid=None, fill=None):
    """Each row's (the last axis's) log-softmax over its ``valid`` entries (None: all of them).
    An invalid entry gets ``fill`` (None: what ``NO_SCORE`` gives, a very low number; ``-inf``
    for a beam's totals); the row's exponentials are summed in the scores' precision (float64
    scores: float64)."""
    masked = scores if valid is None else xp.where(valid, scores, NO_SCORE)
    masked = masked - masked.max(axis=-1, keepdims=True)
    out = masked - xp.log(xp.exp(masked).sum(axis=-1, keepdims=True))
    return out if fill is None or valid is None else xp.where(valid, out, fill)


def softmax(xp, scores, valid=None):
    """Each row's softmax over its ``valid`` entries, 0 elsewhere."""
    probs = xp.exp(log_softmax(xp, scores, valid))
    return probs if valid is None else probs * valid
