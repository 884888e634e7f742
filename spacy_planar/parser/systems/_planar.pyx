# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""C loops of the planar and 2-planar systems (``planar.py``): their moves
in one pass over the rows (``tests/reference.py``, ``planar_transitions``, states them in numpy, and
tests/test_kernels.py checks one against the other), and the tree
constraint (``States.finish``: its rules in ``planar.py``'s docstring; numpy
twins in tests/reference.py).
"""
from libc.stdint cimport int64_t

from spacy_planar.parser.systems._core cimport (HEAD, LEFT, REDUCE, RIGHT, SHIFT, SWITCH, _add_arc,
                                          _on_inactive, _top)

import numpy as np


def planar_moves(const int64_t[::1] idx, const int64_t[::1] moves, const int64_t[::1] labels,
                 int64_t[:, :, ::1] stack, int64_t[:, ::1] sp, int64_t[::1] active, const int64_t[:, ::1] buf,
                 int64_t[::1] bp, int64_t[:, :, ::1] info, int64_t[:, ::1] ndeps, int64_t[:, ::1] comp,
                 int64_t[::1] n_arcs):
    """The transitions of the planar and 2-planar systems (``Planar``'s
    ``transitions``, in one pass): moves[k] with label labels[k] on row idx[k].
    SHIFT pushes b0 onto every stack, REDUCE pops the active one, the arcs
    link its top and b0, SWITCH swaps the stacks."""
    cdef Py_ssize_t k, s, n_stacks = stack.shape[1]
    cdef int64_t b, a, w, s0, b0
    for k in range(idx.shape[0]):
        b = idx[k]
        a = active[b]
        if moves[k] == SHIFT:
            bp[b] -= 1
            w = buf[b, bp[b]]
            for s in range(n_stacks):
                stack[b, s, sp[b, s]] = w
                sp[b, s] += 1
        elif moves[k] == REDUCE:
            sp[b, a] -= 1
        elif moves[k] == LEFT or moves[k] == RIGHT:
            s0 = stack[b, a, sp[b, a] - 1]
            b0 = buf[b, bp[b] - 1]
            if moves[k] == LEFT:
                _add_arc(info, ndeps, comp, b, b0, s0, labels[k])
            else:
                _add_arc(info, ndeps, comp, b, s0, b0, labels[k])
            n_arcs[b] += 1
        elif moves[k] == SWITCH:
            active[b] = 1 - a



def constrain_moves(unsigned char[:, ::1] valid, const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp,
                    const int64_t[::1] active, const int64_t[:, ::1] buf, const int64_t[::1] bp,
                    const int64_t[:, :, ::1] info, const unsigned char[:, ::1] unshifted,
                    const int64_t[::1] roots_out, const int64_t[:, ::1] comp, const int64_t[::1] n,
                    const int64_t[::1] n_arcs):
    """Clear the moves of valid [B, N_MOVES] that the tree constraint forbids (the
    rules are in ``Planar``'s docstring): only rows near the end of β or
    with a word gone headless are concerned."""
    cdef Py_ssize_t b, B = valid.shape[0], two = stack.shape[1] == 2
    cdef int64_t a, s0, b0
    cdef bint uns, ok
    for b in range(B):
        a = active[b]
        s0 = _top(stack, sp, b, a)
        if bp[b] > 1 and roots_out[b] == 0 and not two and (s0 < 0 or info[b, s0, HEAD] >= 0):
            continue
        b0 = buf[b, bp[b] - 1] if bp[b] > 0 else -1
        uns = b0 >= 0 and unshifted[b, b0]
        # while β is not empty, one word at most leaves the stacks without a head (planar: the root,
        # and only while a word of its tree stays on the stack or in β, so that the other words can
        # still join it), none (2-planar: the root can stay on the other stack); with an unshifted b0,
        # a headless s0 can be linked to it instead
        if s0 >= 0 and bp[b] > 0 and info[b, s0, HEAD] < 0:
            if uns:
                ok = s0 == b0
            elif two:
                ok = _on_inactive(stack, sp, active, b, s0)
            else:  # planar: see below
                ok = roots_out[b] == 0 and _tree_stays(stack, sp, comp, b, a, s0, b0) and (
                    bp[b] > 1 or comp[b, b0] == comp[b, s0] or info[b, b0, HEAD] < 0)
            if not ok:
                valid[b, REDUCE] = 0
        if not two and not uns and roots_out[b] > 0 and bp[b] > 0:
            # planar, once the root is gone (``Planar``'s docstring): its tree keeps a word on the
            # stack or in β; β's last word joins it or stays headless (to take the words below as
            # dependents), and is shifted only onto a stack whose bottom word is in it
            if s0 >= 0 and info[b, s0, HEAD] >= 0 and not _tree_stays(stack, sp, comp, b, a, s0, b0):
                valid[b, REDUCE] = 0
            if bp[b] == 1:
                if s0 >= 0 and not _root_gone(stack, sp, b, a, comp[b, s0], b0):
                    valid[b, RIGHT] = 0
                if not _root_gone(stack, sp, b, a, comp[b, stack[b, a, 0] if sp[b, a] > 0 else b0], b0):
                    valid[b, SHIFT] = 0
        # an unshifted b0 that needs a head (another root is left) may not pass
        # over the last word of the active stack that could give it one
        if (uns and s0 >= 0 and info[b, s0, HEAD] >= 0 and comp[b, s0] != comp[b, b0] and n[b] - n_arcs[b] >= 2
                and not _reaches(stack, sp, comp, b, a, b0, sp[b, a] - 1)):
            valid[b, REDUCE] = 0
        if not two or not _may_switch(stack, sp, comp, b, a, b0, uns, n[b] - n_arcs[b] >= 2, bp[b] > 0):
            valid[b, SWITCH] = 0
        # an unshifted word leaves β by getting a head, or headless when no stack can give it one
        if uns and not (s0 < 0 and not valid[b, SWITCH]):
            valid[b, SHIFT] = 0



cdef inline bint _may_switch(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, const int64_t[:, ::1] comp,
                             Py_ssize_t b, int64_t a, int64_t b0, bint uns, bint roots_left, bint buffered):
    """2-planar: SWITCH only to a non-empty stack; with an unshifted b0, to one with b0 on top, or
    to one with a word that could head it when the active stack has none left (``_reaches``;
    ``roots_left``: two headless words at least)."""
    cdef int64_t top = _top(stack, sp, b, 1 - a)
    if uns:
        return top >= 0 and (top == b0 or (roots_left and not _reaches(stack, sp, comp, b, a, b0, sp[b, a])
                                           and _reaches(stack, sp, comp, b, 1 - a, b0, sp[b, 1 - a])))
    return buffered or top >= 0

cdef inline bint _tree_stays(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, const int64_t[:, ::1] comp,
                             Py_ssize_t b, Py_ssize_t a, int64_t s0, int64_t b0):
    """Whether a word of s0's tree is left beside it (below it on stack a,
    or b0) once s0 is reduced: the words left on the stack and in β that
    share a tree are next to each other (no link covers a word that is left)."""
    return (sp[b, a] >= 2 and comp[b, stack[b, a, sp[b, a] - 2]] == comp[b, s0]) or comp[b, b0] == comp[b, s0]


cdef bint _root_gone(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, Py_ssize_t b, Py_ssize_t a,
                     int64_t r, int64_t b0):
    """Whether the root r of a tree (``States.comp`` names a tree by its
    root) has left the stack and β: the tree is the one of the root gone."""
    cdef Py_ssize_t k
    if r == b0:
        return False
    for k in range(sp[b, a]):
        if stack[b, a, k] == r:
            return False
    return True


cdef bint _reaches(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, const int64_t[:, ::1] comp,
                   Py_ssize_t b, Py_ssize_t s, int64_t w, Py_ssize_t depth):
    """Whether the ``depth`` bottom words of stack s of row b hold one outside
    w's tree (one that could head w)."""
    cdef Py_ssize_t k
    for k in range(depth):
        if comp[b, stack[b, s, k]] != comp[b, w]:
            return True
    return False


def leave_headless(const int64_t[::1] idx, const int64_t[::1] moves, const int64_t[:, :, ::1] stack,
                   const int64_t[:, ::1] sp, const int64_t[::1] active, const int64_t[:, ::1] buf,
                   int64_t[::1] bp, const int64_t[:, :, ::1] info, const unsigned char[:, ::1] unshifted,
                   int64_t[::1] roots_out):
    """Before moves[k] is applied to row idx[k] under the tree constraint:
    count the words leaving for good without a head (a headless s0 reduced
    from its last stack and not an unshifted b0's copy; an unshifted b0
    shifted away, with no copy left on a stack), and carry out SHIFT of an
    unshifted b0 (it leaves β onto no stack). Returns [K] which moves were
    carried out here."""
    cdef Py_ssize_t k, K = idx.shape[0]
    cdef int64_t b, a, s0, b0
    out = np.zeros(K, dtype=bool)
    cdef unsigned char[::1] done = out.view(np.uint8)
    for k in range(K):
        b = idx[k]
        a = active[b]
        s0 = _top(stack, sp, b, a)
        b0 = buf[b, bp[b] - 1] if bp[b] > 0 else -1
        if moves[k] == REDUCE and s0 >= 0 and s0 != b0 and info[b, s0, HEAD] < 0:
            if not _on_inactive(stack, sp, active, b, s0):
                roots_out[b] += 1
        elif moves[k] == SHIFT and b0 >= 0 and unshifted[b, b0]:
            if not _on_inactive(stack, sp, active, b, b0):
                roots_out[b] += 1
            bp[b] -= 1
            done[k] = 1
    return out


def settle(const int64_t[::1] idx, int64_t[:, :, ::1] stack, int64_t[:, ::1] sp, const int64_t[::1] active,
           int64_t[:, ::1] buf, int64_t[::1] bp, const int64_t[:, :, ::1] info,
           unsigned char[:, ::1] unshifted, const int64_t[::1] n, const int64_t[::1] n_arcs):
    """The automatic steps of the tree constraint on rows idx whose β holds
    one word at most: an unshifted b0 that has its head leaves β; then, with
    β empty, a headless s0 never unshifted goes back to β (UNSHIFT) while
    another headless word is left (on a stack or gone)."""
    cdef Py_ssize_t k
    cdef int64_t b, a, s0, b0
    for k in range(idx.shape[0]):
        b = idx[k]
        if bp[b] > 1:
            continue
        if bp[b] == 1:
            b0 = buf[b, 0]
            if unshifted[b, b0] and info[b, b0, HEAD] >= 0:
                bp[b] = 0
        a = active[b]
        s0 = _top(stack, sp, b, a)
        if bp[b] == 0 and s0 >= 0 and info[b, s0, HEAD] < 0 and not unshifted[b, s0] and n[b] - n_arcs[b] >= 2:
            sp[b, a] -= 1
            buf[b, 0] = s0
            bp[b] = 1
            unshifted[b, s0] = 1
