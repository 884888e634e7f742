# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""C loops of the batched state core (``state.py``), one pass over the batch
each: reading the stack and buffer positions, gathering feature tokens,
adding arcs, and picking each row's best valid action. What every system
does on every transition runs here rather than as a dozen numpy calls,
which is what a step cost when batches shrink to a few sentences. Each has
a numpy twin in ``tests/reference.py`` that the tests compare it with.
"""
from libc.stdint cimport int64_t

import numpy as np

# the moves, as state.py names them (declared once, in _core.pxd)
MOVES = (SHIFT, REDUCE, LEFT, RIGHT, SWITCH, SWAP)
INFO_COLUMNS = (LMOST, RMOST, LMOST2, RMOST2, HEAD, LABEL)


def positions(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, const int64_t[::1] active,
              const int64_t[:, ::1] buf, const int64_t[::1] bp):
    """[B, 8]: s0 s1 s2 (active stack, top first), b0 b1 b2 (buffer, front
    first), i0 i1 (inactive stack, with two stacks); -1 where absent."""
    cdef Py_ssize_t B = stack.shape[0], n_stacks = stack.shape[1]
    out = np.empty((B, 8), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    cdef Py_ssize_t b, k
    cdef int64_t a, d
    for b in range(B):
        a = active[b]
        d = sp[b, a]
        for k in range(3):
            o[b, k] = stack[b, a, d - 1 - k] if d - 1 - k >= 0 else -1
        d = bp[b]
        for k in range(3):
            o[b, 3 + k] = buf[b, d - 1 - k] if d - 1 - k >= 0 else -1
        if n_stacks > 1:
            d = sp[b, 1 - a]
            for k in range(2):
                o[b, 6 + k] = stack[b, 1 - a, d - 1 - k] if d - 1 - k >= 0 else -1
        else:
            o[b, 6] = -1
            o[b, 7] = -1
    return out


def at(const int64_t[:, :] table, const int64_t[:] words):
    """table[b, words[b]] for each row b, -1 where words[b] < 0."""
    cdef Py_ssize_t b, B = words.shape[0]
    out = np.empty(B, dtype=np.int64)
    cdef int64_t[::1] o = out
    for b in range(B):
        o[b] = table[b, words[b]] if words[b] >= 0 else -1
    return out


cdef inline int64_t _resolve(const int64_t[:, ::1] bases, const int64_t[:, :, ::1] info, Py_ssize_t b,
                             int64_t base, int64_t rel) nogil:
    cdef int64_t w = bases[b, base]
    if rel < 0 or w < 0:
        return w
    return info[b, w, rel]


def gather(const int64_t[:, ::1] bases, const int64_t[:, :, ::1] info, const int64_t[::1] base,
           const int64_t[::1] rel, const int64_t[::1] lab_base, const int64_t[::1] lab_rel,
           const int64_t[::1] offsets):
    """Feature tokens [B, F] and the label ids of their arcs [B, L].

    Slot f of row b is the word ``bases[b, base[f]]`` or, when ``rel[f] >= 0``,
    that word's relation ``info[b, word, rel[f]]`` (a dependent or the head);
    tokens are returned as rows of the batch's token table: word w of row b
    is ``offsets[b] + w - 1``; -1 for absent words and for the artificial root."""
    cdef Py_ssize_t B = bases.shape[0], F = base.shape[0], L = lab_base.shape[0]
    feats = np.empty((B, F), dtype=np.int64)
    labs = np.empty((B, L), dtype=np.int64)
    cdef int64_t[:, ::1] fo = feats
    cdef int64_t[:, ::1] lo = labs
    cdef Py_ssize_t b, f
    cdef int64_t w
    for b in range(B):
        for f in range(F):
            w = _resolve(bases, info, b, base[f], rel[f])
            fo[b, f] = offsets[b] + w - 1 if w > 0 else -1
        for f in range(L):
            w = _resolve(bases, info, b, lab_base[f], lab_rel[f])
            lo[b, f] = info[b, w, LABEL] if w >= 0 else -1
    return feats, labs


def add_arcs(int64_t[:, :, ::1] info, int64_t[:, ::1] ndeps, int64_t[:, ::1] comp,
             const int64_t[::1] idx, const int64_t[::1] heads, const int64_t[::1] deps,
             const int64_t[::1] labels):
    """Add the arcs heads[k] -> deps[k] (label ids) to rows idx[k]: head and
    label of the dependent, the head's leftmost / rightmost two dependents,
    its number of dependents, and the union of the two components."""
    cdef Py_ssize_t k
    for k in range(idx.shape[0]):
        _add_arc(info, ndeps, comp, idx[k], heads[k], deps[k], labels[k])


def best_actions(const float[:, ::1] scores, const unsigned char[:, ::1] valid_moves,
                 const int64_t[::1] move_of, const unsigned char[::1] skip):
    """The highest-scoring valid action of each row (the first on ties):
    action a is valid where its move valid_moves[b, move_of[a]] is; -1 for
    rows to skip and rows with no valid action."""
    cdef Py_ssize_t b, a, B = scores.shape[0], A = scores.shape[1]
    cdef int64_t best
    cdef float top
    out = np.empty(B, dtype=np.int64)
    cdef int64_t[::1] o = out
    for b in range(B):
        best = -1
        if not skip[b]:
            for a in range(A):
                if valid_moves[b, move_of[a]] and (best < 0 or scores[b, a] > top):
                    best, top = a, scores[b, a]
        o[b] = best
    return out


