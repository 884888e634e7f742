"""Plain-Python reference implementations of the definitions, for tests."""
from itertools import product
from typing import Sequence, Tuple

import numpy as np

from spacy_planar.parser.transition.driver import drive
from spacy_planar.parser.oracles import PREFER
from spacy_planar.parser.systems.base import TransitionSystem
from spacy_planar.parser.systems.state import INT, LEFT, REDUCE, RIGHT, SHIFT, SWAP, SWITCH, States


def central_differences(f, A, eps: float = 1e-2) -> np.ndarray:
    """The gradient of the scalar ``f`` at the array ``A`` by central differences, entry by entry:
    what the models' backward passes are checked against."""
    out = np.zeros(A.shape)
    for idx in np.ndindex(*A.shape):
        up, down = A.copy(), A.copy()
        up[idx] += eps
        down[idx] -= eps
        out[idx] = (f(up) - f(down)) / (2 * eps)
    return out


def dominates(heads, a, d):
    while d != 0:
        if d == a:
            return True
        d = heads[d - 1]
    return a == 0


def nonprojective(heads):
    out = []
    for d, h in enumerate(heads, 1):
        lo, hi = sorted((h, d))
        out.append(any(not dominates(heads, h, k) for k in range(lo + 1, hi)))
    return out


def crossing_pairs(heads):
    links = [tuple(sorted((h, d))) for d, h in enumerate(heads, 1) if h != 0]
    pairs = []
    for x in range(len(links)):
        for y in range(len(links)):
            (a, b), (c, d) = links[x], links[y]
            if a < c < b < d:
                pairs.append((x, y))
    return links, pairs


def min_planes_brute(heads):
    links, pairs = crossing_pairs(heads)
    if not links:
        return 0
    for m in range(1, len(links) + 1):
        for colours in product(range(m), repeat=len(links)):
            if all(colours[x] != colours[y] for x, y in pairs):
                return m


def yield_of(heads, u):
    return [k for k in range(1, len(heads) + 1) if dominates(heads, u, k)]


def ill_nested(heads):
    n = len(heads)
    for u in range(1, n + 1):
        for v in range(1, n + 1):
            if u == v or dominates(heads, u, v) or dominates(heads, v, u):
                continue
            yu, yv = yield_of(heads, u), yield_of(heads, v)
            for a1 in yu:
                for b1 in yv:
                    for a2 in yu:
                        for b2 in yv:
                            if a1 < b1 < a2 < b2:
                                return True
    return False


def gap_degree(heads):
    best = 0
    for u in range(1, len(heads) + 1):
        y = yield_of(heads, u)
        best = max(best, sum(1 for a, b in zip(y, y[1:]) if b != a + 1))
    return best


# --- twins of the C kernels (per row, per word) ---------------------------

def positions(st):
    """s0 s1 s2 b0 b1 b2 i0 i1 of every row of a States."""
    out = []
    for b in range(st.B):
        a = int(st.active[b])
        stack = st.stack[b, a, :st.sp[b, a]].tolist()[::-1]
        buf = st.buf[b, :st.bp[b]].tolist()[::-1]
        other = st.stack[b, 1 - a, :st.sp[b, 1 - a]].tolist()[::-1] if st.stack.shape[1] > 1 else []
        pad = lambda xs, k: (xs + [-1] * k)[:k]  # noqa: E731
        out.append(pad(stack, 3) + pad(buf, 3) + pad(other, 2))
    return out


def features(st, templates, label_templates, offsets):
    """(feature tokens, label ids) of every row, template by template."""
    bases = dict(zip(("s0", "s1", "s2", "b0", "b1", "b2", "i0", "i1"), zip(*positions(st))))
    relation = {"l": "lmost", "r": "rmost", "l2": "lmost2", "r2": "rmost2", "h": "heads"}

    def word(b, name):
        base, _, rel = name.partition(".")
        w = bases[base][b]
        return w if not rel or w < 0 else int(getattr(st, relation[rel])[b, w])

    feats = [[offsets[b] + word(b, t) - 1 if word(b, t) > 0 else -1 for t in templates] for b in range(st.B)]
    labs = [[int(st.labels[b, word(b, t)]) if word(b, t) >= 0 else -1 for t in label_templates]
            for b in range(st.B)]
    return feats, labs


def derived_facts(st, b):
    """What the arcs of row b imply for the per-word facts that add_arcs
    keeps: leftmost two / rightmost two dependents, number of dependents,
    and the partition of the words into connected components."""
    heads = st.heads[b].tolist()
    deps = {h: sorted(d for d, hd in enumerate(heads) if hd == h) for h in range(len(heads))}
    facts = []
    for h in range(len(heads)):
        left = [d for d in deps[h] if d < h]
        right = [d for d in deps[h] if d > h][::-1]
        facts.append(((left + [-1, -1])[:2], (right + [-1, -1])[:2], len(deps[h])))
    parent = list(range(len(heads)))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for d, h in enumerate(heads):
        if h >= 0:
            parent[find(d)] = find(h)
    blocks = {}
    for w in range(len(heads)):
        blocks.setdefault(find(w), []).append(w)
    return facts, sorted(blocks.values())


def _top(st, b, s):
    return int(st.stack[b, s, st.sp[b, s] - 1]) if st.sp[b, s] > 0 else -1


def _on_inactive(st, b, w):
    if st.stack.shape[1] == 1:
        return False
    s = 1 - int(st.active[b])
    return w in st.stack[b, s, :st.sp[b, s]].tolist()


def constrain_moves(st, valid):
    """The tree constraint of the planar systems on a [B, 6] validity mask,
    row by row (the rules of spacy_planar.parser.systems.planar's docstring)."""
    for b in range(st.B):
        bp, out = int(st.bp[b]), int(st.roots_out[b])
        two = st.stack.shape[1] == 2
        a = int(st.active[b])
        s0, b0 = _top(st, b, a), (int(st.buf[b, bp - 1]) if bp else -1)
        if bp > 1 and out == 0 and not two and (s0 < 0 or st.heads[b, s0] >= 0):
            continue
        unshifted = b0 >= 0 and bool(st.unshifted[b, b0])
        remaining = st.stack[b, a, :st.sp[b, a]].tolist() + ([b0] if bp else [])

        def tree_stays(b=b, s0=s0, remaining=remaining):  # a word of s0's tree next to it once s0 is reduced
            return any(st.comp[b, w] == st.comp[b, s0] for w in remaining if w != s0)

        def root_gone(w, b=b, remaining=remaining):  # w's tree is the one whose root has left the stack and β
            return int(st.comp[b, w]) not in remaining

        if s0 >= 0 and bp and st.heads[b, s0] < 0:
            # one word at most leaves the stacks headless while β is not empty
            if unshifted:
                ok = s0 == b0
            elif two:
                ok = _on_inactive(st, b, s0)
            else:  # planar: the root, while its tree keeps a word and β's last word can still join it
                ok = out == 0 and tree_stays() and (bp > 1 or st.comp[b, b0] == st.comp[b, s0]
                                                    or st.heads[b, b0] < 0)
            if not ok:
                valid[b, REDUCE] = False
        if not two and not unshifted and out > 0 and bp:
            if s0 >= 0 and st.heads[b, s0] >= 0 and not tree_stays():
                valid[b, REDUCE] = False
            if bp == 1:
                if s0 >= 0 and not root_gone(s0):
                    valid[b, RIGHT] = False
                if not root_gone(remaining[0]):
                    valid[b, SHIFT] = False
        if (unshifted and s0 >= 0 and st.heads[b, s0] >= 0 and st.comp[b, s0] != st.comp[b, b0]
                and st.n[b] - st.n_arcs[b] >= 2):
            below = st.stack[b, a, :st.sp[b, a] - 1].tolist()
            if all(st.comp[b, w] == st.comp[b, b0] for w in below):  # the last word that could head b0
                valid[b, REDUCE] = False
        if st.stack.shape[1] == 2:
            top = _top(st, b, 1 - a)

            def reaches(s, b=b, b0=b0):  # a word outside b0's tree on stack s
                return any(st.comp[b, w] != st.comp[b, b0] for w in st.stack[b, s, :st.sp[b, s]].tolist())

            if unshifted:
                ok = top >= 0 and (top == b0 or (st.n[b] - st.n_arcs[b] >= 2 and not reaches(a)
                                                  and reaches(1 - a)))
            else:
                ok = bp > 0 or top >= 0
            valid[b, SWITCH] &= ok
        else:
            valid[b, SWITCH] = False
        if unshifted and not (s0 < 0 and not valid[b, SWITCH]):
            valid[b, SHIFT] = False


def planar_transitions():
    """The moves of the planar and 2-planar systems (Gómez-Rodríguez & Nivre
    2010, Figures 3 and 4) in numpy, each on the rows ``rows`` with their
    labels and active stacks: what the C kernel (``_planar.planar_moves``)
    must do."""
    def shift(st, rows, labels, stack):
        word = st.pop_buffer(rows)
        for s in range(st.stack.shape[1]):  # onto every stack
            st.push(rows, s, word)

    def reduce(st, rows, labels, stack):
        st.pop(rows, stack)

    def left_arc(st, rows, labels, stack):
        st.add_arcs(rows, st.buf[rows, st.bp[rows] - 1], st.stack[rows, stack, st.sp[rows, stack] - 1], labels)

    def right_arc(st, rows, labels, stack):
        st.add_arcs(rows, st.stack[rows, stack, st.sp[rows, stack] - 1], st.buf[rows, st.bp[rows] - 1], labels)

    def switch(st, rows, labels, stack):
        st.switch(rows)

    return {SHIFT: shift, REDUCE: reduce, LEFT: left_arc, RIGHT: right_arc, SWITCH: switch}


def apply_planar_moves(st, idx, moves, labels):
    """``planar_transitions``' moves on the rows ``idx``, grouped by move."""
    stacks = st.active[idx]
    for move, apply in planar_transitions().items():
        sel = moves == move
        if sel.any():
            apply(st, idx[sel], labels[sel], stacks[sel])


def apply_under_constraint(system, st, idx, moves, labels):
    """Planar.apply_moves under the tree constraint, row by row for the
    constraint's bookkeeping and automatic steps, and the systems' generic
    numpy moves (``apply_planar_moves``)."""
    keep = []
    for k, (b, m) in enumerate(zip(idx.tolist(), moves.tolist())):
        a, bp = int(st.active[b]), int(st.bp[b])
        s0, b0 = _top(st, b, a), (int(st.buf[b, bp - 1]) if bp else -1)
        if m == REDUCE and s0 != b0 and st.heads[b, s0] < 0 and not _on_inactive(st, b, s0):
            st.roots_out[b] += 1  # a headless word leaves for good
        if m == SHIFT and b0 >= 0 and st.unshifted[b, b0]:
            st.roots_out[b] += not _on_inactive(st, b, b0)
            st.bp[b] -= 1  # onto no stack
        else:
            keep.append(k)
    st._memo.clear()
    apply_planar_moves(st, idx[keep], moves[keep], labels[keep])
    for b in idx[keep].tolist():
        if st.bp[b] == 1 and st.unshifted[b, st.buf[b, 0]] and st.heads[b, st.buf[b, 0]] >= 0:
            st.bp[b] = 0  # the unshifted word has its head: it leaves β
        a, s0 = int(st.active[b]), _top(st, b, int(st.active[b]))
        if (st.bp[b] == 0 and s0 >= 0 and st.heads[b, s0] < 0 and not st.unshifted[b, s0]
                and st.n[b] - st.n_arcs[b] >= 2):  # UNSHIFT
            st.sp[b, a] -= 1
            st.buf[b, 0], st.bp[b] = s0, 1
            st.unshifted[b, s0] = True
    st._memo.clear()


def hidden(table, bias, ids, E, lab_ids, n_pieces):
    """The parser's hidden layer, state by state."""
    n_rows = table.shape[0]
    out = []
    for r in range(len(ids)):
        acc = bias.astype("float64").copy()
        for f, t in enumerate(ids[r]):
            acc += table[t if t >= 0 else n_rows - 1, f]
        for f, v in enumerate(lab_ids[r]):
            acc += E[f, v if v >= 0 else E.shape[1] - 1]
        pieces = acc.reshape(-1, n_pieces).max(axis=1)
        out.append(pieces if n_pieces > 1 else [max(x, 0.0) for x in pieces])
    return out


# --- exhaustive search over configurations (the dynamic oracles' ground truth) ---------
# A configuration is a tuple; heads[w] is -1 while w has no head (heads[0] unused).


def _connected(heads, a, b):
    def top(x):
        while heads[x] > 0:
            x = heads[x]
        return x
    return top(a) == top(b)


def planar_successors(cfg, n):
    """Planar / 2-planar (Gómez-Rodríguez & Nivre 2010): cfg = (stacks,
    active, last move was SWITCH, next buffer word, heads); one stack for
    planar, two for 2-planar."""
    stacks, active, switched, b, heads = cfg
    out = {}
    s = stacks[active]
    if b <= n:
        out[SHIFT] = (tuple(t + (b,) for t in stacks), active, False, b + 1, heads)
    if s:
        popped = list(stacks)
        popped[active] = s[:-1]
        out[REDUCE] = (tuple(popped), active, False, b, heads)
        if b <= n and not _connected(heads, s[-1], b):
            for move, h, d in ((LEFT, b, s[-1]), (RIGHT, s[-1], b)):
                if heads[d] < 0:
                    new = list(heads)
                    new[d] = h
                    out[move] = (stacks, active, False, b, tuple(new))
    if len(stacks) == 2 and not switched:
        out[SWITCH] = (stacks, 1 - active, True, b, heads)
    return out


def planar_final(cfg, n):
    return cfg[3] > n


def gold_arcs_only(successors, gold):
    """``planar_successors`` without the arcs that are not in ``gold``: the
    search of ``best_reachable`` stays exact (in planar and 2-planar an arc
    moves no word, so leaving a non-gold arc out of a derivation keeps every
    later move valid, SWITCH pairs aside, which cancel, and loses no gold
    link) and gets small enough for 7-word trees."""
    def succ(cfg, n):
        out = successors(cfg, n)
        for move in (LEFT, RIGHT):
            if move in out:
                new, old = out[move][-1], cfg[-1]
                d = next(w for w in range(1, n + 1) if new[w] != old[w])
                if new[d] != gold[d]:
                    del out[move]
        return out
    return succ


def swap_successors(cfg, n):
    """Swap (Nivre 2009): cfg = (stack with 0 at the bottom, buffer front first, heads)."""
    stack, buf, heads = cfg
    out = {}
    if buf:
        out[SHIFT] = (stack + (buf[0],), buf[1:], heads)
    if len(stack) >= 2:
        i, j = stack[-2], stack[-1]
        for move, h, d, rest in ((LEFT, j, i, stack[:-2] + (j,)), (RIGHT, i, j, stack[:-1])):
            if move == LEFT and i == 0:
                continue
            new = list(heads)
            new[d] = h
            out[move] = (rest, buf, tuple(new))
        if 0 < i < j:
            out[SWAP] = (stack[:-2] + (j,), (i,) + buf, heads)
    return out


def swap_final(cfg, n):
    return cfg[0] == (0,) and not cfg[1]


def best_reachable(successors, final, gold, n):
    """best(cfg): the most gold links (heads, 0 for a root; a headless word
    counts as a root) of any final configuration reachable from cfg."""
    cache = {}

    def best(cfg):
        if cfg not in cache:
            if final(cfg, n):
                heads = cfg[-1]
                cache[cfg] = sum(heads[w] == gold[w] or (heads[w] < 0 and gold[w] == 0) for w in range(1, n + 1))
            else:
                cache[cfg] = max(best(c) for c in successors(cfg, n).values())
        return cache[cfg]
    return best


def link_costs(system, st, gold, look_across=True):
    """The numpy twin of ``_link_costs.link_costs`` (the definition is in
    ``oracles.planar.link_costs``'s docstring): one array operation over the batch
    per quantity."""
    B, T = st.B, st.T
    rows = st.rows
    r2 = rows[:, None]
    x = np.arange(T)[None, :]
    s0, b0 = st.s(0), st.b(0)
    s0c, b0c = np.maximum(s0, 0), np.maximum(b0, 0)
    g = gold.heads
    gc = np.maximum(g, 0)
    headless = (st.heads < 0) & (x >= 1) & (x <= st.n[:, None])
    u, v = np.minimum(gc, x), np.maximum(gc, x)
    has_b = (b0 > 0)[:, None]
    u_in_beta = has_b & (u >= b0[:, None])
    n_stacks = st.stack.shape[1]
    active = st.active
    on_active = st.in_stack(active)
    on_other = st.in_stack(1 - active) if n_stacks == 2 else np.zeros_like(on_active)
    u_active, u_other = on_active[r2, u], on_other[r2, u]
    comp = st.comp
    pending = ((g > 0) & headless & (comp != comp[r2, gc]) & has_b & (v >= b0[:, None])
               & (u_in_beta | u_active | u_other))
    alive = headless & ((g == 0) | pending)  # the word's own gold link can still be had

    # the root (headless word) of each component
    rootmap = np.full((B, T), -1, dtype=INT)
    rr, cc = np.nonzero(headless)
    rootmap[rr, comp[rr, cc]] = cc

    def closes_cycle(h: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Whether the pending links lead from h's component up into d's."""
        target = comp[rows, np.maximum(d, 0)]
        r = np.where((h >= 0) & (d >= 0), rootmap[rows, comp[rows, np.maximum(h, 0)]], -1)
        hit = np.zeros(B, dtype=bool)
        for _ in range(T):
            rc = np.maximum(r, 0)
            up = (r >= 0) & pending[rows, rc]
            if not up.any():
                break
            cy = comp[rows, gc[rows, rc]]
            hit |= up & (cy == target)
            r = np.where(up & (cy != target), rootmap[rows, cy], -1)
        return hit

    both = (s0 >= 0) & (b0 >= 0)
    cost = np.zeros((B, 6))
    # links with b0 as right end and the left end on a stack
    to_b0 = pending & (v == b0[:, None]) & ~u_in_beta
    cost[:, SHIFT] = to_b0.sum(axis=1)
    of_s0 = pending & (u == s0[:, None]) & (s0 >= 0)[:, None]
    s0_elsewhere = on_other[rows, s0c] & (s0 >= 0)
    cost[:, REDUCE] = np.where(s0_elsewhere, 0, of_s0.sum(axis=1))
    lost_by_arc = []
    for move, h, d in ((LEFT, b0, s0), (RIGHT, s0, b0)):
        dc = np.maximum(d, 0)
        is_gold = both & (g[rows, dc] == h)
        own = both & alive[rows, dc] & ~is_gold
        # a pending link already on a cycle is lost anyway (counted once)
        own &= ~closes_cycle(np.where(own & (g[rows, dc] > 0), g[rows, dc], -1), d)
        cycle = both & closes_cycle(h, d) & ~(is_gold & pending[rows, dc])
        cost[:, move] = own.astype(float) + cycle
        lost = (x == d[:, None]) & both[:, None]
        lost_by_arc.append(lost)
    arc_here = ((pending[rows, s0c] & (g[rows, s0c] == b0)) | (pending[rows, b0c] & (g[rows, b0c] == s0)))
    cost[:, SWITCH] = np.where((to_b0 & u_other).any(axis=1) & ~(both & arc_here), 0, PREFER)
    if n_stacks == 2 and look_across:
        # SWITCH cannot follow SWITCH: it costs what the best next move on the other stack costs
        last = st.last.copy()
        st.switch(rows)
        st.last[:] = SWITCH
        across, _ = link_costs(system, st, gold, look_across=False)
        st.switch(rows)
        st.last[:] = last
        cost[:, SWITCH] += np.floor(across.min(axis=1))
    below_s0 = (to_b0 & u_active & (u < s0[:, None])).any(axis=1)
    cost[:, REDUCE] += np.where(below_s0, 0, PREFER)

    pairs = getattr(gold, "pairs", None)
    if pairs is not None and len(pairs):
        pb, d1, d2 = pairs[:, 0], pairs[:, 1], pairs[:, 2]
        planes_now = []
        for d in (d1, d2):
            uu = u[pb, d]
            stacked = on_active[pb, uu] * (1 << active[pb]) + on_other[pb, uu] * (1 << (1 - active[pb]))
            bits = np.where(u_in_beta[pb, d], 3, stacked)
            planes_now.append((pending[pb, d], bits, uu))

        def conflicts(links) -> np.ndarray:
            (p1, a1, _), (p2, a2, _) = links
            return p1 & p2 & (a1 == a2) & ((a1 == 1) | (a1 == 2))

        now = conflicts(planes_now)

        def delta(links_after) -> np.ndarray:
            return np.bincount(pb, weights=conflicts(links_after).astype(float) - now, minlength=B)

        # SHIFT: links with b0 as right end are lost
        cost[:, SHIFT] += delta([(p & ~to_b0[pb, d], a, uu) for (p, a, uu), d in zip(planes_now, (d1, d2))])
        # REDUCE: s0 leaves the active stack
        after = []
        for (p, a, uu), d in zip(planes_now, (d1, d2)):
            at_s0 = (uu == s0[pb]) & ~u_in_beta[pb, d]
            a2 = np.where(at_s0, a & ~(1 << active[pb]), a)
            after.append((p & (a2 > 0), a2, uu))
        cost[:, REDUCE] += delta(after)
        for move, lost in zip((LEFT, RIGHT), lost_by_arc):
            cost[:, move] += delta([(p & ~lost[pb, d], a, uu) for (p, a, uu), d in zip(planes_now, (d1, d2))])
    cost[~system.valid_moves(st)] = np.inf
    cost[:, [m for m in range(6) if m not in system.moves]] = np.inf
    label = np.full((B, 6), -1, dtype=INT)
    label[:, LEFT] = np.where(both & (g[rows, s0c] == b0), gold.labels[rows, s0c], -1)
    label[:, RIGHT] = np.where(both & (g[rows, b0c] == s0), gold.labels[rows, b0c], -1)
    return cost, label


# --- the driver loop by chance ----------------------------------------------------

def random_run(system: TransitionSystem, lengths: Sequence[int], rng: np.random.Generator,
               finish: bool = False) -> Tuple[States, np.ndarray]:
    """Drive states with uniformly random valid actions until all are final
    (``finish``: under the tree constraint); returns the final states (no row
    dropped) and the number of transitions of each."""
    st = system.init_states(lengths, finish=finish)

    def choose(st: States, oracle: None, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        valid = system.valid_actions(st)
        has = valid.any(axis=1)
        if (live & ~has).any():
            raise RuntimeError(f"{system.name}: a non-final state has no valid action")
        scores = rng.random(valid.shape) + valid * 2.0
        return np.where(has, scores.argmax(axis=1), -1)

    drive(system, st, choose, bounded=True, compact_below=0.0)
    return st, st.steps.copy()


def move_log_probs(scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The beam's recorded moves' log-probabilities, by hand: each row's valid scores (in the
    model's precision) less their log sum exp, the exponentials in that precision and summed in
    float64 (-inf where not valid)."""
    masked = np.where(valid, scores, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    return masked.astype(np.float64) - (top + np.log(np.exp(masked - top).sum(axis=1, keepdims=True,
                                                                                dtype=np.float64)))


def tree_score(scores: np.ndarray, heads: Sequence[int]) -> float:
    """The sum of the scores of a tree's arcs (what the decoders maximise)."""
    return float(np.asarray(scores, dtype=np.float64)[np.arange(len(heads)), np.asarray(heads)].sum())
