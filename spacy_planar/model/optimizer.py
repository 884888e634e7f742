"""``spacy-planar.Adam.v1``: Thinc's Adam (``Adam.v1``: the same settings, the same updates to
float32 rounding), each parameter's step in one pass of C (``_adam.pyx``) where its weights are
contiguous numpy float32, Thinc's own step elsewhere (a GPU's arrays). Measured with
``spacy-planar lab bench train`` (docs/results.md, issue 87): Thinc's step is a dozen numpy calls
per parameter (the L2 term, the norm, the moments, the average), which on the accurate tier's few
hundred small parameters a step cost more than their arithmetic; the shipped configs use it
(base.partial.cfg). Registered as a Thinc optimizer (entry point ``thinc_optimizers``).

``clip_global`` (issue 95, item 4: Stanza's and UDPipe 2's rule, docs/decisions.md): the step's
gradients are held (copied; the model's zeroed as a step zeroes them) until ``step_schedules``
(spaCy's training loop calls it after every component's ``finish_update``; a parameter given twice
also ends the step), then clipped together by their global norm at ``grad_clip`` and stepped
without a clip of their own; with ``per_word``, first divided by the step's words, which the parser
components give (``note_words``), so that each task's loss is a mean per word (every loss here is a
sum over the words or the states of the batch)."""
from __future__ import annotations

from typing import Dict, Tuple, cast

import numpy
from thinc.api import Optimizer
from thinc.backends import get_array_ops
from thinc.config import registry
from thinc.optimizers import ADAM_DEFAULTS, FloatOrSeq
from thinc.types import FloatsXd

from spacy_planar.errors import Errors, UserError, Warnings, unexpected

MAX_AVERAGE_DECAY = 0.9999  # Thinc's ops.update_averages'


class FusedAdam(Optimizer):
    """Thinc's ``Optimizer`` with Adam (no RAdam) whose step on numpy float32 is ``_adam.adam_step``;
    with ``clip_global``, a step's gradients held and clipped by their global norm (the module)."""

    def __init__(self, learn_rate: FloatOrSeq, *, clip_global: bool = False, per_word: bool = False, **settings):
        super().__init__(learn_rate, **settings)
        self.clip_global = bool(clip_global)
        self.per_word = bool(per_word)
        self.words = 0
        self._held: Dict[Tuple[int, str], Tuple[FloatsXd, FloatsXd, float]] = {}

    def note_words(self, words: int) -> None:
        """The words of this step's batch (the parsers' ``finish_update``; the largest count given)."""
        self.words = max(self.words, int(words))

    def __call__(self, key: Tuple[int, str], weights: FloatsXd, gradient: FloatsXd, *, lr_scale: float = 1.0):
        if len(gradient) < 1:
            return weights, gradient
        if self.clip_global:
            if key in self._held:  # a second step began before step_schedules
                self.flush()
            # a copy, and the gradient zeroed as a step zeroes it: the next backward adds to nothing, and a
            # shim (PyTorch's) that zeroes its own gradient after the call leaves the copy as it was
            self._held[key] = (weights, gradient.copy(), lr_scale)
            gradient.fill(0)
            return weights, gradient
        return self._step(key, weights, gradient, lr_scale, self.grad_clip or 0.0)

    def flush(self) -> None:
        """Step every held parameter: the gradients scaled (per word) and clipped by their global norm."""
        held, self._held = self._held, {}
        if not held:
            return
        if self.per_word and not self.words:
            unexpected(Warnings.W130.format(count=len(held)))
        scale = 1.0 / self.words if self.per_word and self.words else 1.0
        self.words = 0
        ops = get_array_ops(next(iter(held.values()))[1])
        norm = scale * sum(float(ops.xp.vdot(g.ravel(), g.ravel())) for _, g, _ in held.values()) ** 0.5
        if self.grad_clip and norm > self.grad_clip:
            scale *= self.grad_clip / norm
        for key, (weights, gradient, lr_scale) in held.items():
            if scale != 1.0:
                gradient *= scale
            self._step(key, weights, gradient, lr_scale, 0.0)

    def step_schedules(self):
        self.flush()
        super().step_schedules()

    def _step(self, key: Tuple[int, str], weights: FloatsXd, gradient: FloatsXd, lr_scale: float, clip: float):
        """One parameter's step, clipped by its own norm at ``clip`` (0: no clip)."""
        if not (isinstance(weights, numpy.ndarray) and isinstance(gradient, numpy.ndarray)
                and weights.dtype == gradient.dtype == numpy.float32
                and weights.flags.c_contiguous and gradient.flags.c_contiguous):
            own_clip, self.grad_clip = self.grad_clip, clip
            try:
                return super().__call__(key, weights, gradient, lr_scale=lr_scale)
            finally:
                self.grad_clip = own_clip
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
                  lr_scale * self.learn_rate * self.L2, clip,
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
    clip_global: bool = False,
    per_word: bool = False,
) -> FusedAdam:
    """Thinc's ``Adam.v1`` (its settings and defaults), stepped by ``FusedAdam``; ``clip_global``
    and ``per_word`` as the module says."""
    if per_word and not clip_global:
        raise UserError(Errors.E169)
    return FusedAdam(learn_rate, L2=L2, beta1=beta1, beta2=beta2, eps=eps, grad_clip=grad_clip,
                     L2_is_weight_decay=L2_is_weight_decay, use_averages=use_averages, use_radam=False,
                     clip_global=clip_global, per_word=per_word)
