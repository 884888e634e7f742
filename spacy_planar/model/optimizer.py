"""``spacy-planar.Adam.v1``: Thinc's Adam (``Adam.v1``: the same settings, the same updates to
float32 rounding), each parameter's step in one pass of C (``_adam.pyx``) where its weights are
contiguous numpy float32, Thinc's own step elsewhere (a GPU's arrays). Measured with
``spacy-planar lab bench train`` (docs/results.md, issue 87): Thinc's step is a dozen numpy calls
per parameter (the L2 term, the norm, the moments, the average), which on the accurate tier's few
hundred small parameters a step cost more than their arithmetic; the shipped configs use it
(base.partial.cfg). Registered as a Thinc optimizer (entry point ``thinc_optimizers``)."""
from __future__ import annotations

from typing import Tuple, cast

import numpy
from thinc.api import Optimizer
from thinc.config import registry
from thinc.optimizers import ADAM_DEFAULTS, FloatOrSeq
from thinc.types import FloatsXd

MAX_AVERAGE_DECAY = 0.9999  # Thinc's ops.update_averages'


class FusedAdam(Optimizer):
    """Thinc's ``Optimizer`` with Adam (no RAdam) whose step on numpy float32 is ``_adam.adam_step``."""

    def __call__(self, key: Tuple[int, str], weights: FloatsXd, gradient: FloatsXd, *, lr_scale: float = 1.0):
        if len(gradient) < 1:
            return weights, gradient
        if not (isinstance(weights, numpy.ndarray) and isinstance(gradient, numpy.ndarray)
                and weights.dtype == gradient.dtype == numpy.float32
                and weights.flags.c_contiguous and gradient.flags.c_contiguous):
            return super().__call__(key, weights, gradient, lr_scale=lr_scale)
        from spacy_planar.model._adam import adam_step

        self.nr_update[key] += 1
        t = self.nr_update[key]
        if key not in self.mom1:
            self.mom1[key] = numpy.zeros(weights.size, dtype="float32")
            self.mom2[key] = numpy.zeros(weights.size, dtype="float32")
        averaged = self.averages is not None
        if averaged and key not in self.averages:
            self.averages[key] = numpy.zeros(weights.shape, dtype="float32")
        average = self.averages[key].reshape(-1) if averaged else self.mom1[key]  # unused where not averaged
        b1, b2 = self.b1, self.b2
        adam_rate = self.learn_rate * (1.0 - b2 ** t) ** 0.5 / (1.0 - b1 ** t) * lr_scale
        adam_step(weights.reshape(-1), gradient.reshape(-1), self.mom1[key], self.mom2[key], average,
                  b1, b2, self.eps, adam_rate, self.L2, self.L2_is_weight_decay,
                  lr_scale * self.learn_rate * self.L2, self.grad_clip or 0.0,
                  min((1.0 + t) / (10.0 + t), MAX_AVERAGE_DECAY), averaged)
        return weights, gradient


@registry.optimizers("spacy-planar.Adam.v1")
def fused_adam(
    learn_rate: FloatOrSeq = ADAM_DEFAULTS["learn_rate"],
    *,
    L2: FloatOrSeq = ADAM_DEFAULTS["L2"],
    beta1: FloatOrSeq = ADAM_DEFAULTS["beta1"],
    beta2: FloatOrSeq = ADAM_DEFAULTS["beta2"],
    eps: FloatOrSeq = ADAM_DEFAULTS["eps"],
    grad_clip: FloatOrSeq = ADAM_DEFAULTS["grad_clip"],
    L2_is_weight_decay: bool = cast(bool, ADAM_DEFAULTS["L2_is_weight_decay"]),
    use_averages: bool = True,
) -> FusedAdam:
    """Thinc's ``Adam.v1`` (its settings and defaults), stepped by ``FusedAdam``."""
    return FusedAdam(learn_rate, L2=L2, beta1=beta1, beta2=beta2, eps=eps, grad_clip=grad_clip,
                     L2_is_weight_decay=L2_is_weight_decay, use_averages=use_averages, use_radam=False)
