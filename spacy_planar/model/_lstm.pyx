# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""The LSTM's gates for one time step on the CPU, forward and backward, each
in one C loop (``bilstm.lstm_forward``; the array twin that CupyOps runs is
``bilstm.step_forward`` / ``bilstm.step_backward``, and tests/test_encoders.py
holds the two equal). A step's matrix products stay in numpy's BLAS; what
this fuses is the dozen elementwise passes around them, each of which
allocated a temporary array per step. It is what runs for a step of few
cells (``bilstm.C_CELLS_FORWARD``, ``C_CELLS_BACKWARD``); numpy's vectorised
exp and tanh win on more.

Both read each row through a pointer and take tanh as ``1 - 2 / (1 +
exp(2x))``: glibc's ``tanhf`` cost 20 ns a call here, ``expf`` 4, and the
kernel went from 126 to 58 ns a cell (absolute error under 3e-7)."""
from libc.math cimport expf


cdef inline float sigmoid(float x) noexcept nogil:
    return 1.0 / (1.0 + expf(-x))


cdef inline float tanh_(float x) noexcept nogil:
    return 1.0 - 2.0 / (1.0 + expf(2.0 * x))


def gates_forward(float[:, ::1] g, const float[:, ::1] r, const float[:, ::1] c_prev, float[:, ::1] c,
                  float[:, ::1] h):
    """One step for the ``n`` sequences still running: ``g`` (n, 4 nO) holds
    W x + b, ``r`` (n, 4 nO) U h'; ``g`` is overwritten with the gates'
    activations i, f, o (sigmoid) and z (tanh), and the step's cells
    ``c = f c' + i z`` and outputs ``h = o tanh(c)`` are written."""
    cdef Py_ssize_t n = g.shape[0], nO = c.shape[1], s, k
    cdef float i, f, o, z, cell
    cdef float *gs, *cs, *hs
    cdef const float *rs, *cps
    if n == 0:
        return
    with nogil:
        for s in range(n):
            gs, rs, cps, cs, hs = &g[s, 0], &r[s, 0], &c_prev[s, 0], &c[s, 0], &h[s, 0]
            for k in range(nO):
                i = sigmoid(gs[k] + rs[k])
                f = sigmoid(gs[nO + k] + rs[nO + k])
                o = sigmoid(gs[2 * nO + k] + rs[2 * nO + k])
                z = tanh_(gs[3 * nO + k] + rs[3 * nO + k])
                gs[k] = i
                gs[nO + k] = f
                gs[2 * nO + k] = o
                gs[3 * nO + k] = z
                cell = f * cps[k] + i * z
                cs[k] = cell
                hs[k] = o * tanh_(cell)


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
    cdef const float *a, *cps, *cs, *dys, *dhs
    cdef float *dcs, *dgs
    if n == 0:
        return
    with nogil:
        for s in range(n):
            a, cps, cs, dys, dhs = &acts[s, 0], &c_prev[s, 0], &c[s, 0], &dy[s, 0], &dh[s, 0]
            dcs, dgs = &dc[s, 0], &dg[s, 0]
            for k in range(nO):
                i = a[k]
                f = a[nO + k]
                o = a[2 * nO + k]
                z = a[3 * nO + k]
                tc = tanh_(cs[k])
                dhv = dys[k] + dhs[k]
                dcv = dcs[k] + dhv * o * (1 - tc * tc)
                dgs[k] = dcv * z * i * (1 - i)
                dgs[nO + k] = dcv * cps[k] * f * (1 - f)
                dgs[2 * nO + k] = dhv * tc * o * (1 - o)
                dgs[3 * nO + k] = dcv * i * (1 - z * z)
                dcs[k] = dcv * f
