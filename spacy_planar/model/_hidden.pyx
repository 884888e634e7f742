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
