# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""The maximum spanning arborescence of a dense graph (Chu & Liu 1965; Edmonds 1967), the C loop
behind ``trees.mst``: each node takes its best head; a cycle is contracted into one node, whose
incoming arcs score what they add over the cycle's own arc into the node they enter and whose
outgoing arcs are the best from any of its nodes; the contracted graph is solved the same way
and expanded, the cycle broken where the chosen incoming arc enters. O(n^3) at worst, O(n^2) for
a graph whose best heads already form a tree. ``tests/test_mst.py`` holds it equal to a brute
force over every tree of small graphs."""
from libc.math cimport INFINITY

import numpy as np


cdef Py_ssize_t _find_cycle(const Py_ssize_t[::1] heads, Py_ssize_t n, Py_ssize_t[::1] mark,
                            Py_ssize_t[::1] in_cycle) nogil:
    """Mark the nodes of one cycle of the head graph in ``in_cycle`` (1); return its size (0: none)."""
    cdef Py_ssize_t v, u, start, size
    for v in range(n):
        mark[v] = -1
        in_cycle[v] = 0
    for start in range(1, n):
        if mark[start] != -1:
            continue
        v = start
        while v > 0 and mark[v] == -1:  # walk up, marking the path with its start
            mark[v] = start
            v = heads[v]
        if v > 0 and mark[v] == start:  # came back to this walk's own path: a cycle through v
            size = 0
            u = v
            while True:
                in_cycle[u] = 1
                size += 1
                u = heads[u]
                if u == v:
                    break
            return size
    return 0


cdef void _best_heads(double[:, ::1] S, Py_ssize_t n, Py_ssize_t[::1] heads):
    """Each node's best head (``heads[0]`` -1)."""
    cdef Py_ssize_t h, d, best_h
    cdef double best
    heads[0] = -1
    for d in range(1, n):
        best, best_h = -INFINITY, 0
        for h in range(n):
            if h != d and S[h, d] > best:
                best, best_h = S[h, d], h
        heads[d] = best_h


cdef void _contract(double[:, ::1] S, Py_ssize_t n, Py_ssize_t[::1] heads, Py_ssize_t[::1] in_cycle,
                    Py_ssize_t[::1] other, double[:, ::1] S2, Py_ssize_t[::1] enter, Py_ssize_t[::1] leave):
    """The graph with the cycle (``in_cycle``) as one node, its last (``S2``, m x m; ``other``: the
    nodes off the cycle in order): each arc into the cycle scored by what it adds over the cycle's
    own arc into the node it enters (``enter``), each arc out of it by its best (``leave``)."""
    cdef Py_ssize_t m = S2.shape[0], c = m - 1, k, w, u, v, best_h
    cdef double best, value
    for k in range(m - 1):
        u = other[k]
        for w in range(m - 1):
            S2[k, w] = S[u, other[w]]
        best, best_h = -INFINITY, -1
        for v in range(n):  # u -> the cycle: what it adds over the cycle's own arc into v
            if in_cycle[v] and S[u, v] > -INFINITY:
                value = S[u, v] - S[heads[v], v]
                if value > best:
                    best, best_h = value, v
        S2[k, c] = best
        enter[k] = best_h
        best, best_h = -INFINITY, -1
        for v in range(n):  # the cycle -> u
            if in_cycle[v] and S[v, u] > best:
                best, best_h = S[v, u], v
        S2[c, k] = best
        leave[k] = best_h


cdef void _cle(double[:, ::1] S, Py_ssize_t n, Py_ssize_t[::1] out):
    """``out[d]``: the head of node d (d >= 1) in a maximum arborescence from node 0 of the
    graph ``S[h, d]`` over n nodes (``-INFINITY``: no arc). ``S`` is left as it was."""
    cdef Py_ssize_t h, d, v, k, m, size, c
    heads_arr = np.zeros(n, dtype=np.intp)
    cdef Py_ssize_t[::1] heads = heads_arr
    _best_heads(S, n, heads)
    mark_arr = np.empty(n, dtype=np.intp)
    cyc_arr = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] in_cycle = cyc_arr
    size = _find_cycle(heads, n, mark_arr, in_cycle)
    if size == 0:
        for d in range(n):
            out[d] = heads[d]
        return
    # the contracted graph: the nodes off the cycle in order (node 0 first), then the cycle as node c
    m = n - size + 1
    c = m - 1
    index_arr = np.empty(n, dtype=np.intp)  # each node off the cycle: its number in the contracted graph
    other_arr = np.empty(m - 1, dtype=np.intp)  # and back
    cdef Py_ssize_t[::1] index = index_arr, other = other_arr
    k = 0
    for v in range(n):
        if not in_cycle[v]:
            index[v] = k
            other[k] = v
            k += 1
    S2_arr = np.full((m, m), -INFINITY)
    cdef double[:, ::1] S2 = S2_arr
    enter_arr = np.zeros(m, dtype=np.intp)  # the cycle's node an arc from each contracted node enters
    leave_arr = np.zeros(m, dtype=np.intp)  # the cycle's node an arc to each contracted node leaves
    cdef Py_ssize_t[::1] enter = enter_arr, leave = leave_arr
    _contract(S, n, heads, in_cycle, other, S2, enter, leave)
    heads2_arr = np.empty(m, dtype=np.intp)
    cdef Py_ssize_t[::1] heads2 = heads2_arr
    _cle(S2, m, heads2)
    for d in range(n):
        out[d] = heads[d]  # the cycle's nodes keep their cycle arcs but one
    for k in range(1, m - 1):
        h = heads2[k]
        out[other[k]] = leave[k] if h == c else other[h]
    h = heads2[c]  # the arc into the cycle, and the node it enters
    out[enter[h]] = other[h]


def max_arborescence(double[:, ::1] scores):
    """The heads (``heads[0]`` -1) of a maximum spanning arborescence from node 0 of the dense
    graph ``scores[h, d]`` (n x n, ``-inf`` where there is no arc; the diagonal is not read). Every
    node d >= 1 needs an arc from somewhere (from node 0 at least)."""
    cdef Py_ssize_t n = scores.shape[0]
    out_arr = np.empty(n, dtype=np.intp)
    if n:
        _cle(scores, n, out_arr)
        out_arr[0] = -1
    return out_arr
