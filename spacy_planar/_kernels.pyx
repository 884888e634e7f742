# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""C loops for the parse loop's hot spots, one pass over the batch each.

The transition systems describe themselves in numpy over a batch of states
(``systems/``); what every system does on every transition (reading the
stack and buffer positions, gathering feature tokens, adding arcs) and the
parser's per-step hidden layer run here instead of as a dozen numpy calls
each, which is what a step cost when batches shrink to a few sentences.
Every function has a numpy twin in ``tests/reference.py`` that the tests
compare it with.
"""
from libc.stdint cimport int64_t
from libc.math cimport INFINITY, floor
from libc.stdlib cimport free, malloc


cdef extern from *:
    """
    #define PREFETCH(p) __builtin_prefetch(p)
    """
    void PREFETCH(const void*) nogil

import numpy as np

# columns of States.info, and the moves (see systems/state.py)
cdef enum:
    LMOST, RMOST, LMOST2, RMOST2, HEAD, LABEL
cdef enum:
    SHIFT, REDUCE, LEFT, RIGHT, SWITCH, SWAP


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


def add_arcs(int64_t[:, :, ::1] info, int64_t[:, ::1] ndeps, int64_t[:, ::1] comp,
             const int64_t[::1] idx, const int64_t[::1] heads, const int64_t[::1] deps,
             const int64_t[::1] labels):
    """Add the arcs heads[k] -> deps[k] (label ids) to rows idx[k]: head and
    label of the dependent, the head's leftmost / rightmost two dependents,
    its number of dependents, and the union of the two components."""
    cdef Py_ssize_t k
    for k in range(idx.shape[0]):
        _add_arc(info, ndeps, comp, idx[k], heads[k], deps[k], labels[k])


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


# --- the tree constraint of the planar systems (``Planar``, ``States.finish``) ---------

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


def constrain_moves(unsigned char[:, ::1] valid, const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp,
                    const int64_t[::1] active, const int64_t[:, ::1] buf, const int64_t[::1] bp,
                    const int64_t[:, :, ::1] info, const unsigned char[:, ::1] unshifted,
                    const int64_t[::1] roots_out):
    """Clear the moves of valid [B, 6] that the tree constraint forbids (the
    rules are in ``Planar``'s docstring): only rows near the end of β or
    with a word gone headless are concerned."""
    cdef Py_ssize_t b, B = valid.shape[0], two = stack.shape[1] == 2
    cdef int64_t a, s0, b0, top
    cdef bint uns, ok
    for b in range(B):
        if bp[b] > 1 and roots_out[b] == 0:
            continue
        a = active[b]
        s0 = _top(stack, sp, b, a)
        b0 = buf[b, bp[b] - 1] if bp[b] > 0 else -1
        uns = b0 >= 0 and unshifted[b, b0]
        # while β is not empty, one word at most leaves the stacks without a
        # head; with an unshifted b0, a headless s0 can be linked to it instead
        if s0 >= 0 and bp[b] > 0 and info[b, s0, HEAD] < 0:
            if uns:
                ok = s0 == b0
            else:
                ok = roots_out[b] == 0 or _on_inactive(stack, sp, active, b, s0)
            if not ok:
                valid[b, REDUCE] = 0
        if two:  # SWITCH only to a non-empty stack; with an unshifted b0, to one with b0 on top
            top = _top(stack, sp, b, 1 - a)
            if not ((top >= 0 and top == b0) if uns else (bp[b] > 0 or top >= 0)):
                valid[b, SWITCH] = 0
        else:
            valid[b, SWITCH] = 0
        # an unshifted word leaves β by getting a head, or headless when no stack can give it one
        if uns and not (s0 < 0 and not valid[b, SWITCH]):
            valid[b, SHIFT] = 0


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


# --- the approximate dynamic oracle of the planar systems (``planar.link_costs``) ------

cdef inline int64_t _clip(int64_t w):
    return w if w > 0 else 0


cdef bint _closes_cycle(int64_t h, int64_t d, Py_ssize_t b, const int64_t[:, ::1] comp,
                        const int64_t[:, ::1] gold, const unsigned char* pending, const int64_t* rootmap,
                        Py_ssize_t T):
    """Whether the pending links lead from h's component up into d's."""
    cdef int64_t target, r, cy
    cdef Py_ssize_t it
    if h < 0 or d < 0:
        return False
    target = comp[b, d]
    r = rootmap[comp[b, h]]
    for it in range(T):
        if r < 0 or not pending[r]:
            return False
        cy = comp[b, _clip(gold[b, r])]
        if cy == target:
            return True
        r = rootmap[cy]
    return False


cdef inline bint _conflict(bint p1, int64_t a1, bint p2, int64_t a2):
    """Two crossing pending links whose left ends sit on the same single stack."""
    return p1 and p2 and a1 == a2 and (a1 == 1 or a1 == 2)


cdef void _row_link_costs(Py_ssize_t b, int64_t A, const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp,
                          const int64_t[:, ::1] buf, const int64_t[::1] bp, const int64_t[:, :, ::1] info,
                          const int64_t[:, ::1] comp, const int64_t[::1] n, const int64_t[:, ::1] gold,
                          const int64_t[:, ::1] pairs, Py_ssize_t p_start, Py_ssize_t p_end,
                          const unsigned char[:, ::1] valid, double prefer,
                          unsigned char* pending, unsigned char* on_a, unsigned char* on_o, int64_t* rootmap,
                          double* out):
    """``planar.link_costs`` of row b with stack A active, without SWITCH's
    look across (its numpy twin in tests/reference.py)."""
    cdef Py_ssize_t T = comp.shape[1], two = stack.shape[1] == 2, x, k, p, e
    cdef int64_t O = 1 - A, s0, b0, g, u, v, h, d, dc, uu, m
    cdef int64_t shift = 0, of_s0 = 0
    cdef bint has_b, both, to_other = False, below_s0 = False, is_gold, own, cycle, arc_here, alive
    cdef bint in_beta, now, lost
    cdef int64_t dd[2]
    cdef bint pp[2]
    cdef int64_t aa[2]
    cdef int64_t uu_e[2]  # each link's left end
    cdef int64_t vv_e[2]  # and right end
    cdef bint in_beta_e[2]
    cdef bint after_p[2]
    cdef int64_t after_a[2]
    cdef double delta[4]
    s0 = _top(stack, sp, b, A)
    b0 = buf[b, bp[b] - 1] if bp[b] > 0 else -1
    has_b = b0 > 0
    both = s0 >= 0 and b0 >= 0
    for x in range(T):
        on_a[x] = 0
        on_o[x] = 0
        rootmap[x] = -1
    for k in range(sp[b, A]):
        on_a[stack[b, A, k]] = 1
    if two:
        for k in range(sp[b, O]):
            on_o[stack[b, O, k]] = 1
    for x in range(1, n[b] + 1):
        if info[b, x, HEAD] < 0:
            rootmap[comp[b, x]] = x
    # pending gold links u - v: dependent headless, ends apart, v in β, u on a stack or in β
    for x in range(T):
        pending[x] = 0
        g = gold[b, x]
        if x < 1 or x > n[b] or info[b, x, HEAD] >= 0 or g <= 0 or not has_b or comp[b, x] == comp[b, g]:
            continue
        u = g if g < x else x
        v = g if g > x else x
        if v >= b0 and (u >= b0 or on_a[u] or on_o[u]):
            pending[x] = 1
    for x in range(T):
        if not pending[x]:
            continue
        g = gold[b, x]
        u = g if g < x else x
        v = g if g > x else x
        if v == b0 and u < b0:  # a link with b0 as right end, its left end on a stack
            shift += 1
            if on_o[u]:
                to_other = True
            if on_a[u] and u < s0:
                below_s0 = True
        if s0 >= 0 and u == s0:
            of_s0 += 1
    out[SHIFT] = shift
    out[REDUCE] = (0 if (s0 >= 0 and on_o[s0]) else of_s0) + (0 if below_s0 else prefer)
    for m in range(LEFT, RIGHT + 1):
        if m == LEFT:
            h, d = b0, s0
        else:
            h, d = s0, b0
        dc = _clip(d)
        is_gold = both and gold[b, dc] == h
        alive = 1 <= dc <= n[b] and info[b, dc, HEAD] < 0 and (gold[b, dc] == 0 or pending[dc])
        own = both and alive and not is_gold
        if own and gold[b, dc] > 0:  # a pending link already on a cycle is lost anyway (counted once)
            own = not _closes_cycle(gold[b, dc], d, b, comp, gold, pending, rootmap, T)
        cycle = both and _closes_cycle(h, d, b, comp, gold, pending, rootmap, T) and not (is_gold and pending[dc])
        out[m] = <double>own + <double>cycle
    arc_here = ((pending[_clip(s0)] and gold[b, _clip(s0)] == b0)
                or (pending[_clip(b0)] and gold[b, _clip(b0)] == s0))
    out[SWITCH] = 0 if (to_other and not (both and arc_here)) else prefer
    out[SWAP] = 0
    # the change in crossing conflicts that SHIFT, REDUCE, LEFT-ARC, RIGHT-ARC make
    for k in range(4):
        delta[k] = 0
    for p in range(p_start, p_end):
        dd[0] = pairs[p, 1]
        dd[1] = pairs[p, 2]
        for e in range(2):
            d = dd[e]
            g = _clip(gold[b, d])
            uu = min(g, d)
            uu_e[e] = uu
            vv_e[e] = max(g, d)
            in_beta_e[e] = has_b and uu >= b0
            pp[e] = pending[d]
            aa[e] = 3 if in_beta_e[e] else on_a[uu] * (1 << A) + on_o[uu] * (1 << O)
        now = _conflict(pp[0], aa[0], pp[1], aa[1])
        for m in range(SHIFT, RIGHT + 1):
            for e in range(2):
                d = dd[e]
                in_beta = in_beta_e[e]
                after_a[e] = aa[e]
                if m == SHIFT:  # links with b0 as right end are lost
                    lost = pp[e] and vv_e[e] == b0 and not in_beta
                    after_p[e] = pp[e] and not lost
                elif m == REDUCE:  # s0 leaves the active stack
                    if uu_e[e] == s0 and not in_beta:
                        after_a[e] = aa[e] & ~(1 << A)
                    after_p[e] = pp[e] and after_a[e] > 0
                else:  # the dependent's own link is decided
                    lost = both and d == (s0 if m == LEFT else b0)
                    after_p[e] = pp[e] and not lost
            delta[m] += <double>_conflict(after_p[0], after_a[0], after_p[1], after_a[1]) - <double>now
    for k in range(4):
        out[k] += delta[k]
    for k in range(6):
        if not valid[b, k]:
            out[k] = INFINITY


def link_costs(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, const int64_t[::1] active,
               const int64_t[:, ::1] buf, const int64_t[::1] bp, const int64_t[:, :, ::1] info,
               const int64_t[:, ::1] comp, const int64_t[::1] n, const int64_t[:, ::1] gold,
               const int64_t[:, ::1] pairs, const int64_t[::1] pair_start,
               const unsigned char[:, ::1] valid, const unsigned char[:, ::1] valid_across,
               bint look_across, double prefer, double[:, ::1] cost):
    """The move costs of ``planar.link_costs`` (its docstring has the
    definition) for every row into cost [B, 6], inf where not ``valid``:
    pairs [P, 3] are (row, d1, d2) crossing gold links, sorted by row, row
    b's from pair_start[b] to pair_start[b + 1]. With ``look_across`` (two
    stacks) SWITCH also costs the floor of the cheapest move on the other
    stack, ``valid_across`` being the moves valid there after SWITCH."""
    cdef Py_ssize_t B = stack.shape[0], T = comp.shape[1], b, k
    cdef double best
    cdef double across[6]
    cdef unsigned char* scratch = <unsigned char*>malloc(3 * T)
    cdef int64_t* rootmap = <int64_t*>malloc(T * sizeof(int64_t))
    try:
        for b in range(B):
            _row_link_costs(b, active[b], stack, sp, buf, bp, info, comp, n, gold, pairs, pair_start[b],
                            pair_start[b + 1], valid, prefer, scratch, scratch + T, scratch + 2 * T, rootmap,
                            &cost[b, 0])
            if look_across and stack.shape[1] == 2:
                _row_link_costs(b, 1 - active[b], stack, sp, buf, bp, info, comp, n, gold, pairs,
                                pair_start[b], pair_start[b + 1], valid_across, prefer, scratch, scratch + T,
                                scratch + 2 * T, rootmap, across)
                best = INFINITY
                for k in range(6):
                    if across[k] < best:
                        best = across[k]
                cost[b, SWITCH] += floor(best)
    finally:
        free(scratch)
        free(rootmap)
