# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One parameter's optimizer step in one pass over its weights (``optimizer.py``): the L2 term,
the gradient's clipping by its norm, Adam's moments and step, the gradient zeroed, weight decay and
the weights' moving average, as Thinc's ``Optimizer`` does them one numpy call at a time
(thinc/optimizers.py, ``Optimizer.__call__``; the Adam kernel of thinc/backends/numpy_ops.pyx)."""
from libc.math cimport sqrt, sqrtf


def adam_step(float[::1] weights, float[::1] gradient, float[::1] mom1, float[::1] mom2, float[::1] average,
              float beta1, float beta2, float eps, float adam_rate, float L2, bint weight_decay,
              float decay_rate, float grad_clip, float average_decay, bint averaged):
    """One update of ``weights`` (all 1-d, float32, contiguous) in place. ``adam_rate``: the
    step's rate with Adam's bias corrections and the lr scale; ``decay_rate``: the rate of weight
    decay (lr scale x learn rate x L2); ``average_decay``: the moving average's decay this step."""
    cdef Py_ssize_t i, n = weights.shape[0]
    cdef double norm = 0.0
    cdef float g, scale, one_minus_b1 = 1.0 - beta1, one_minus_b2 = 1.0 - beta2
    cdef float one_minus_avg = 1.0 - average_decay
    with nogil:
        if L2 != 0.0 and not weight_decay:
            for i in range(n):
                gradient[i] += L2 * weights[i]
        if grad_clip != 0.0:
            for i in range(n):
                norm += <double>gradient[i] * gradient[i]
            norm = sqrt(norm)
            if norm >= grad_clip:
                scale = <float>(grad_clip / norm)
                for i in range(n):
                    gradient[i] *= scale
        for i in range(n):
            g = gradient[i]
            mom1[i] = beta1 * mom1[i] + one_minus_b1 * g
            mom2[i] = beta2 * mom2[i] + one_minus_b2 * g * g
            weights[i] -= adam_rate * (mom1[i] / (sqrtf(mom2[i]) + eps))
            gradient[i] = 0.0
            if weight_decay and L2 != 0.0:
                weights[i] -= decay_rate * weights[i]
            if averaged:
                average[i] -= one_minus_avg * (average[i] - weights[i])
