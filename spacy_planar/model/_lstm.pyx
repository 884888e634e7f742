# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""The LSTM's gates for one time step on the CPU, forward and backward, each
in one C loop (``bilstm.lstm_forward``; the array twin that CupyOps runs is
``bilstm.step_forward`` / ``bilstm.step_backward``, and tests/test_encoders.py
holds the two equal). A step's matrix products stay in numpy's BLAS; what
this fuses is the dozen elementwise passes around them, each of which
allocated a temporary array per step."""
from libc.math cimport expf, tanhf


cdef inline float sigmoid(float x) nogil:
    return 1.0 / (1.0 + expf(-x))


def gates_forward(float[:, ::1] g, const float[:, ::1] r, const float[:, ::1] c_prev, float[:, ::1] c,
                  float[:, ::1] h):
    """One step for the ``n`` sequences still running: ``g`` (n, 4 nO) holds
    W x + b, ``r`` (n, 4 nO) U h'; ``g`` is overwritten with the gates'
    activations i, f, o (sigmoid) and z (tanh), and the step's cells
    ``c = f c' + i z`` and outputs ``h = o tanh(c)`` are written."""
    cdef Py_ssize_t n = g.shape[0], nO = c.shape[1], s, k
    cdef float i, f, o, z, cell
    with nogil:
        for s in range(n):
            for k in range(nO):
                i = sigmoid(g[s, k] + r[s, k])
                f = sigmoid(g[s, nO + k] + r[s, nO + k])
                o = sigmoid(g[s, 2 * nO + k] + r[s, 2 * nO + k])
                z = tanhf(g[s, 3 * nO + k] + r[s, 3 * nO + k])
                g[s, k] = i
                g[s, nO + k] = f
                g[s, 2 * nO + k] = o
                g[s, 3 * nO + k] = z
                cell = f * c_prev[s, k] + i * z
                c[s, k] = cell
                h[s, k] = o * tanhf(cell)


def gates_backward(const float[:, ::1] acts, const float[:, ::1] c_prev, const float[:, ::1] c,
                   const float[:, ::1] dy, const float[:, ::1] dh, float[:, ::1] dc, float[:, ::1] dg):
    """The step's backward for its ``n`` sequences: ``acts`` the gates'
    activations saved by the forward, ``dy`` the gradient of the step's
    outputs, ``dh`` that from the next step into them (U's product),
    ``dc`` that into the cells (read, then overwritten with the gradient
    into the previous cells, ``dc f``); ``dg`` (n, 4 nO) gets the gradient
    of the gates' pre-activations."""
    cdef Py_ssize_t n = acts.shape[0], nO = c.shape[1], s, k
    cdef float i, f, o, z, tc, dhv, dcv
    with nogil:
        for s in range(n):
            for k in range(nO):
                i = acts[s, k]
                f = acts[s, nO + k]
                o = acts[s, 2 * nO + k]
                z = acts[s, 3 * nO + k]
                tc = tanhf(c[s, k])
                dhv = dy[s, k] + dh[s, k]
                dcv = dc[s, k] + dhv * o * (1 - tc * tc)
                dg[s, k] = dcv * z * i * (1 - i)
                dg[s, nO + k] = dcv * c_prev[s, k] * f * (1 - f)
                dg[s, 2 * nO + k] = dhv * tc * o * (1 - o)
                dg[s, 3 * nO + k] = dcv * i * (1 - z * z)
                dc[s, k] = dcv * f
