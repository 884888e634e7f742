# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""Shared C declarations of the batched state core: the columns of
``States.info``, the moves (the one place they are declared; ``state.py``
reads them from ``_core.MOVES``) and the helpers the kernels of the systems
and oracles share."""
from libc.stdint cimport int64_t

# columns of States.info
cdef enum:
    LMOST, RMOST, LMOST2, RMOST2, HEAD, LABEL
# the moves
cdef enum:
    SHIFT, REDUCE, LEFT, RIGHT, SWITCH, SWAP


cdef inline int64_t _top(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, Py_ssize_t b, Py_ssize_t s):
    return stack[b, s, sp[b, s] - 1] if sp[b, s] > 0 else -1


cdef inline bint _on_inactive(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp,
                              const int64_t[::1] active, Py_ssize_t b, int64_t w):
    """Whether w is on the inactive stack of row b (one stack: never)."""
    cdef Py_ssize_t k, s
    if stack.shape[1] == 1:
        return False
    s = 1 - active[b]
    for k in range(sp[b, s]):
        if stack[b, s, k] == w:
            return True
    return False


cdef inline void _add_arc(int64_t[:, :, ::1] info, int64_t[:, ::1] ndeps, int64_t[:, ::1] comp,
                          int64_t b, int64_t h, int64_t d, int64_t label) noexcept:
    cdef Py_ssize_t w
    cdef int64_t old, new
    info[b, d, HEAD] = h
    info[b, d, LABEL] = label
    if d < h:
        if info[b, h, LMOST] < 0 or d < info[b, h, LMOST]:
            info[b, h, LMOST2] = info[b, h, LMOST]
            info[b, h, LMOST] = d
        elif info[b, h, LMOST2] < 0 or d < info[b, h, LMOST2]:
            info[b, h, LMOST2] = d
    else:
        if d > info[b, h, RMOST]:
            info[b, h, RMOST2] = info[b, h, RMOST]
            info[b, h, RMOST] = d
        elif d > info[b, h, RMOST2]:
            info[b, h, RMOST2] = d
    ndeps[b, h] += 1
    old, new = comp[b, d], comp[b, h]
    if old != new:
        for w in range(comp.shape[1]):
            if comp[b, w] == old:
                comp[b, w] = new

