# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3, initializedcheck=False
"""The approximate dynamic oracle of the planar systems in C, one row at a
time (``oracles/planar.py``'s ``link_costs`` has the definition; its numpy
twin is in tests/reference.py)."""
from libc.stdint cimport int64_t
from libc.math cimport INFINITY, floor
from libc.stdlib cimport free, malloc

from spacy_planar.parser.systems._core cimport HEAD, LEFT, REDUCE, RIGHT, SHIFT, SWAP, SWITCH, _top


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
    """Two crossing pending links whose left ends sit on the same single
    stack (``Link.stacks`` 1 or 2: one stack's bit alone)."""
    return p1 and p2 and a1 == a2 and (a1 == 1 or a1 == 2)


cdef struct Row:
    # one row's configuration as the costs read it, stack A active, O the other
    Py_ssize_t b, T
    int64_t A, O, s0, b0, n
    bint has_b, both
    unsigned char* pending  # [T] the link into x is pending
    unsigned char* on_a     # [T] x is on the active stack
    unsigned char* on_o     # [T] x is on the other stack
    int64_t* rootmap        # [T] component -> its headless word


cdef struct Link:
    # one of two crossing gold links: its dependent, ends, whether pending, and
    # ``stacks``: the set of stacks its left end is on, or will be on, as bits
    # (1 << A, 1 << O); a left end in β will be on both (SHIFT pushes onto both)
    int64_t dep, left, right, stacks
    bint in_beta, pending


cdef void _mark(Row* r, const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp,
                const int64_t[:, :, ::1] info, const int64_t[:, ::1] comp, const int64_t[:, ::1] gold):
    """Fill the row's stack membership, the headless word of each component
    and the pending gold links: dependent headless, ends in different
    components, right end in β, left end on a stack or in β."""
    cdef Py_ssize_t x, k, b = r.b
    cdef int64_t g, left, right
    for x in range(r.T):
        r.on_a[x] = 0
        r.on_o[x] = 0
        r.rootmap[x] = -1
    for k in range(sp[b, r.A]):
        r.on_a[stack[b, r.A, k]] = 1
    if stack.shape[1] == 2:
        for k in range(sp[b, r.O]):
            r.on_o[stack[b, r.O, k]] = 1
    for x in range(1, r.n + 1):
        if info[b, x, HEAD] < 0:
            r.rootmap[comp[b, x]] = x
    for x in range(r.T):
        r.pending[x] = 0
        g = gold[b, x]
        if x < 1 or x > r.n or info[b, x, HEAD] >= 0 or g <= 0 or not r.has_b or comp[b, x] == comp[b, g]:
            continue
        left = g if g < x else x
        right = g if g > x else x
        if right >= r.b0 and (left >= r.b0 or r.on_a[left] or r.on_o[left]):
            r.pending[x] = 1


cdef void _shift_reduce_switch(Row* r, const int64_t[:, ::1] gold, double prefer, double* out):
    """SHIFT: the pending links between b0 and stack words; REDUCE: those of
    s0 to β unless s0 is on the other stack too; SWITCH: nothing is lost.
    REDUCE and SWITCH cost ``prefer`` more unless the static oracle would
    make them (a pending link to b0 starts below s0 / on the other stack)."""
    cdef Py_ssize_t x
    cdef int64_t g, left, right, shift = 0, of_s0 = 0
    cdef bint to_other = False, below_s0 = False, arc_here
    for x in range(r.T):
        if not r.pending[x]:
            continue
        g = gold[r.b, x]
        left = g if g < x else x
        right = g if g > x else x
        if right == r.b0 and left < r.b0:  # a link with b0 as right end, its left end on a stack
            shift += 1
            if r.on_o[left]:
                to_other = True
            if r.on_a[left] and left < r.s0:
                below_s0 = True
        if r.s0 >= 0 and left == r.s0:
            of_s0 += 1
    out[SHIFT] = shift
    out[REDUCE] = (0 if (r.s0 >= 0 and r.on_o[r.s0]) else of_s0) + (0 if below_s0 else prefer)
    arc_here = ((r.pending[_clip(r.s0)] and gold[r.b, _clip(r.s0)] == r.b0)
                or (r.pending[_clip(r.b0)] and gold[r.b, _clip(r.b0)] == r.s0))
    out[SWITCH] = 0 if (to_other and not (r.both and arc_here)) else prefer
    out[SWAP] = 0


cdef void _arcs(Row* r, const int64_t[:, :, ::1] info, const int64_t[:, ::1] comp,
                const int64_t[:, ::1] gold, double* out):
    """LEFT-ARC / RIGHT-ARC: the dependent's own link if it is still alive
    and not this arc, plus one if the arc closes a cycle with pending links."""
    cdef int64_t move, head, dep, d
    cdef bint is_gold, alive, own, cycle
    for move in range(LEFT, RIGHT + 1):
        if move == LEFT:
            head, dep = r.b0, r.s0
        else:
            head, dep = r.s0, r.b0
        d = _clip(dep)
        is_gold = r.both and gold[r.b, d] == head
        alive = 1 <= d <= r.n and info[r.b, d, HEAD] < 0 and (gold[r.b, d] == 0 or r.pending[d])
        own = r.both and alive and not is_gold
        if own and gold[r.b, d] > 0:  # a pending link already on a cycle is lost anyway (counted once)
            own = not _closes_cycle(gold[r.b, d], dep, r.b, comp, gold, r.pending, r.rootmap, r.T)
        cycle = (r.both and _closes_cycle(head, dep, r.b, comp, gold, r.pending, r.rootmap, r.T)
                 and not (is_gold and r.pending[d]))
        out[move] = <double>own + <double>cycle


cdef Link _link(Row* r, const int64_t[:, ::1] gold, int64_t dep):
    cdef Link link
    cdef int64_t g = _clip(gold[r.b, dep])
    link.dep = dep
    link.left = min(g, dep)
    link.right = max(g, dep)
    link.in_beta = r.has_b and link.left >= r.b0
    link.pending = r.pending[dep]
    if link.in_beta:
        link.stacks = (1 << r.A) | (1 << r.O)
    else:
        link.stacks = r.on_a[link.left] * (1 << r.A) + r.on_o[link.left] * (1 << r.O)
    return link


cdef Link _after(Row* r, Link link, int64_t move):
    """The link after SHIFT, REDUCE, LEFT-ARC or RIGHT-ARC: SHIFT loses the
    links with b0 as right end; REDUCE takes s0 off the active stack; an arc
    decides its dependent's own link."""
    cdef Link out = link
    if move == SHIFT:
        out.pending = link.pending and not (link.right == r.b0 and not link.in_beta)
    elif move == REDUCE:
        if link.left == r.s0 and not link.in_beta:
            out.stacks = link.stacks & ~(1 << r.A)
        out.pending = link.pending and out.stacks > 0
    else:
        out.pending = link.pending and not (r.both and link.dep == (r.s0 if move == LEFT else r.b0))
    return out


cdef void _crossing_changes(Row* r, const int64_t[:, ::1] gold, const int64_t[:, ::1] pairs,
                            Py_ssize_t p_start, Py_ssize_t p_end, double* out):
    """Add to SHIFT .. RIGHT-ARC the change each makes in the number of
    crossing pending links whose left ends share a single stack."""
    cdef Py_ssize_t p
    cdef int64_t move
    cdef Link one, two, one_after, two_after
    cdef bint now
    cdef double change[4]
    for move in range(4):
        change[move] = 0
    for p in range(p_start, p_end):
        one = _link(r, gold, pairs[p, 1])
        two = _link(r, gold, pairs[p, 2])
        now = _conflict(one.pending, one.stacks, two.pending, two.stacks)
        for move in range(SHIFT, RIGHT + 1):
            one_after = _after(r, one, move)
            two_after = _after(r, two, move)
            change[move] += (<double>_conflict(one_after.pending, one_after.stacks, two_after.pending,
                                               two_after.stacks) - <double>now)
    for move in range(4):
        out[move] += change[move]


cdef void _row_link_costs(Py_ssize_t b, int64_t A, const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp,
                          const int64_t[:, ::1] buf, const int64_t[::1] bp, const int64_t[:, :, ::1] info,
                          const int64_t[:, ::1] comp, const int64_t[::1] n, const int64_t[:, ::1] gold,
                          const int64_t[:, ::1] pairs, Py_ssize_t p_start, Py_ssize_t p_end,
                          const unsigned char[:, ::1] valid, double prefer,
                          unsigned char* pending, unsigned char* on_a, unsigned char* on_o, int64_t* rootmap,
                          double* out):
    """``link_costs`` of row b with stack A active, without SWITCH's look
    across (its numpy twin in tests/reference.py)."""
    cdef Row r
    cdef Py_ssize_t k
    r.b, r.T, r.A, r.O, r.n = b, comp.shape[1], A, 1 - A, n[b]
    r.s0 = _top(stack, sp, b, A)
    r.b0 = buf[b, bp[b] - 1] if bp[b] > 0 else -1
    r.has_b = r.b0 > 0
    r.both = r.s0 >= 0 and r.b0 >= 0
    r.pending, r.on_a, r.on_o, r.rootmap = pending, on_a, on_o, rootmap
    _mark(&r, stack, sp, info, comp, gold)
    _shift_reduce_switch(&r, gold, prefer, out)
    _arcs(&r, info, comp, gold, out)
    _crossing_changes(&r, gold, pairs, p_start, p_end, out)
    for k in range(6):
        if not valid[b, k]:
            out[k] = INFINITY


def link_costs(const int64_t[:, :, ::1] stack, const int64_t[:, ::1] sp, const int64_t[::1] active,
               const int64_t[:, ::1] buf, const int64_t[::1] bp, const int64_t[:, :, ::1] info,
               const int64_t[:, ::1] comp, const int64_t[::1] n, const int64_t[:, ::1] gold,
               const int64_t[:, ::1] pairs, const int64_t[::1] pair_start,
               const unsigned char[:, ::1] valid, const unsigned char[:, ::1] valid_across,
               bint look_across, double prefer, double[:, ::1] cost):
    """The move costs of ``oracles.planar.link_costs`` (its docstring has the
    definition) for every row into cost [B, N_MOVES], inf where not ``valid``:
    pairs [P, 3] are (row, d1, d2) crossing gold links, sorted by row, row
    b's from pair_start[b] to pair_start[b + 1]. With ``look_across`` (two
    stacks) SWITCH also costs the floor of the cheapest move on the other
    stack, ``valid_across`` being the moves valid there after SWITCH."""
    cdef Py_ssize_t B = stack.shape[0], T = comp.shape[1], b, k
    cdef double best
    cdef double across[6]
    cdef unsigned char* scratch = <unsigned char*>malloc(3 * T)
    cdef int64_t* rootmap = <int64_t*>malloc(T * sizeof(int64_t))
    if scratch == NULL or rootmap == NULL:
        free(scratch)
        free(rootmap)
        raise MemoryError()
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
