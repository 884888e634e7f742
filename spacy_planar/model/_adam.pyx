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
    cdef float scale, one_minus_b1 = 1.0 - beta1, one_minus_b2 = 1.0 - beta2
    cdef float one_minus_avg = 1.0 - average_decay
    cdef float* w = &weights[0]
    cdef float* g = &gradient[0]
    cdef float* m1 = &mom1[0]
    cdef float* m2 = &mom2[0]
    cdef float* avg = &average[0]
    with nogil:
        if L2 != 0.0 and not weight_decay:
            for i in range(n):
                g[i] += L2 * w[i]
        if grad_clip != 0.0:
            for i in range(n):
                norm += <double>g[i] * g[i]
            norm = sqrt(norm)
            if norm >= grad_clip:
                scale = <float>(grad_clip / norm)
                for i in range(n):
                    g[i] *= scale
        for i in range(n):  # branch-free, so that the compiler vectorizes it
            m1[i] = beta1 * m1[i] + one_minus_b1 * g[i]
            m2[i] = beta2 * m2[i] + one_minus_b2 * g[i] * g[i]
            w[i] -= adam_rate * (m1[i] / (sqrtf(m2[i]) + eps))
            g[i] = 0.0
        if weight_decay and L2 != 0.0:
            for i in range(n):
                w[i] -= decay_rate * w[i]
        if averaged:
            for i in range(n):
                avg[i] -= one_minus_avg * (avg[i] - w[i])
