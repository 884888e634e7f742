# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""The parser's hidden layer for a batch of states on the CPU: gather, sum
and maxout in one C loop (``parser_model.StateScorer``; its numpy twin is in
tests/reference.py)."""
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

import numpy as np


cdef extern from *:
    """
    #define PREFETCH(p) __builtin_prefetch(p)
    """
    void PREFETCH(const void*) nogil


def hidden(const float[:, ::1] table, Py_ssize_t n_slots, const float[::1] bias, const int64_t[:, ::1] ids,
           const float[:, :, ::1] E, const int64_t[:, ::1] lab_ids, Py_ssize_t n_pieces):
    """The hidden layer of the parser for a batch of states, on the CPU:
    per state, the bias plus the precomputed rows of its feature tokens
    (``table`` is (tokens + 1) x slots rows of width hidden x pieces, the
    last token the padding; ids[s, f] < 0 -> padding) plus the label
    features' rows of E (lab_ids < 0 -> E's last row), then maxout over
    the pieces (ReLU with one piece)."""
    cdef Py_ssize_t R = ids.shape[0], F = ids.shape[1], L = lab_ids.shape[1]
    cdef Py_ssize_t width = table.shape[1], nH = width // n_pieces
    cdef Py_ssize_t pad = table.shape[0] // n_slots - 1, n_values = E.shape[1]
    out = np.empty((R, nH), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef float* acc = <float*>malloc(width * sizeof(float))
    if acc == NULL:
        raise MemoryError()
    cdef Py_ssize_t r, f, i, h, p
    cdef int64_t t
    cdef const float* row
    cdef float m
    try:
        for r in range(R):
            if r + 2 < R:  # the table is far larger than the cache: ask for rows ahead
                for f in range(F):
                    t = ids[r + 2, f]
                    row = &table[(t if t >= 0 else pad) * n_slots + f, 0]
                    for i in range(0, width, 16):
                        PREFETCH(row + i)
            for i in range(width):
                acc[i] = bias[i]
            for f in range(F):
                t = ids[r, f]
                row = &table[(t if t >= 0 else pad) * n_slots + f, 0]
                for i in range(width):
                    acc[i] += row[i]
            for f in range(L):
                t = lab_ids[r, f]
                row = &E[f, t if t >= 0 else n_values - 1, 0]
                for i in range(width):
                    acc[i] += row[i]
            for h in range(nH):
                m = acc[h * n_pieces]
                for p in range(1, n_pieces):
                    if acc[h * n_pieces + p] > m:
                        m = acc[h * n_pieces + p]
                o[r, h] = m if (n_pieces > 1 or m > 0) else 0
    finally:
        free(acc)
    return out


cdef inline Py_ssize_t _magnitude(int64_t d) noexcept nogil:
    """The bucket of |d| over the edges 1, 2, 3, 4, 6, 9, 14, 19
    (``parser_model.DIST_EDGES``): 0 .. 8."""
    if d < 0:
        d = -d
    if d <= 4:
        return d - 1 if d > 0 else 0
    if d <= 6:
        return 4
    if d <= 9:
        return 5
    if d <= 14:
        return 6
    if d <= 19:
        return 7
    return 8


def pred_scores(const float[:, ::1] scores, const float[:, ::1] P, const float[:, ::1] H,
                const float[:, ::1] S, const float[:, ::1] C, const float[:, ::1] Edh, const float[:, ::1] Edi,
                const float[::1] w, const float[::1] dist_h, const float[::1] dist_i, const int64_t[:, ::1] arcs):
    """The scores of the table's actions and PRED(k) of each state on the CPU
    (``parser_model.pred_scores`` without its backward pass and without
    arrays [states, T] of buckets and candidates): ``scores`` [states, A],
    its last column PRED's; ``P`` [states, nA] the state's part (Wq times
    the hidden layer); the tables and rows ``arcs`` as there. Returns
    [states, A - 1 + T]: the table's scores, then PRED's plus the arc score
    of each k < T (the distance weights only outside the state's range)."""
    cdef Py_ssize_t B = arcs.shape[0], A = scores.shape[1], nA = P.shape[1], N = C.shape[0]
    cdef Py_ssize_t T = 1, b, k, j, bh, bi, nd = dist_h.shape[0]
    cdef int64_t word, h, s, lo, hi, d
    for b in range(B):
        if arcs[b, 3] - arcs[b, 2] + 2 > T:
            T = arcs[b, 3] - arcs[b, 2] + 2
    out = np.empty((B, A - 1 + T), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef float* base = <float*>malloc(nA * sizeof(float))
    if base == NULL:
        raise MemoryError()
    cdef float z, total, mlp
    try:
        for b in range(B):
            for k in range(A - 1):
                o[b, k] = scores[b, k]
            h = arcs[b, 0] if arcs[b, 0] >= 0 else N
            s = arcs[b, 1] if arcs[b, 1] >= 0 else N
            for j in range(nA):
                base[j] = P[b, j] + H[h, j] + S[s, j]
            lo, hi = arcs[b, 5], arcs[b, 6]
            for k in range(T):
                word = arcs[b, 2] + k - 1
                if arcs[b, 0] < 0:
                    bh = nd - 1
                else:
                    d = word - arcs[b, 0]
                    bh = _magnitude(d) if d < 0 else _magnitude(d) + 9
                d = word - arcs[b, 4]
                bi = 0 if d <= 0 else _magnitude(d) + 1
                total = dist_h[bh] + dist_i[bi]
                if lo <= word <= hi and 0 <= word < N:
                    mlp = 0
                    for j in range(nA):
                        z = base[j] + C[word, j] + Edh[bh, j] + Edi[bi, j]
                        if z > 0:
                            mlp += z * w[j]
                    total += mlp
                o[b, A - 1 + k] = scores[b, A - 1] + total
    finally:
        free(base)
    return out
