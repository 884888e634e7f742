"""Several transition parsers' moves as one (``parse --ensemble`` over seeds of one config, a
``planar_ensemble``, ``train --teacher``): the normalised product of the members' move
distributions, each state's scores the mean of the members' log-softmaxes (the one masked
softmax, ``shared/softmax.py``)."""
from __future__ import annotations

from typing import Sequence

from thinc.api import get_array_module

from spacy_planar.parser.shared.softmax import log_softmax


class EnsembleScorer:
    """The members' ``StateScorer``s as one: each state's action scores are
    the mean of the members' log-softmaxes."""

    def __init__(self, scorers: Sequence):
        self.scorers = list(scorers)

    def __call__(self, *inputs):
        total = None
        for scorer in self.scorers:
            scores = scorer(*inputs)
            logp = log_softmax(get_array_module(scores), scores)
            total = logp if total is None else total + logp
        return total / len(self.scorers)

    def restricted(self, rows) -> "EnsembleScorer":
        return EnsembleScorer([scorer.restricted(rows) for scorer in self.scorers])
