"""Dependency-tree algorithms on plain head arrays (no spaCy).

Convention (CoNLL-U's): a sentence of n words is given by ``heads``, a sequence
of length n where ``heads[i - 1]`` is the head of word ``i`` (words count from
1) and 0 is the artificial root. Several words may hang from the root.

Definitions follow Gómez-Rodríguez & Nivre (2010), sections 2-3:

* an arc h -> d is *projective* iff h dominates every word strictly between h
  and d (Nivre & Nilsson 2005, section 2); arcs from the root are projective;
* two *links* (undirected arcs) cross iff their endpoints interleave strictly:
  a < c < b < d for links {a, b} and {c, d}; links from the artificial root are
  not counted (footnote 3);
* a tree is *m-planar* iff its links can be split into m sets (planes) none of
  which contains two crossing links, i.e. iff the *crossings graph* (one vertex
  per link, an edge per crossing) is m-colourable (section 3);
* a tree is *ill-nested* iff two disjoint subtrees interleave (Bodirsky et al.
  2005), and its *gap degree* is the largest number of gaps in a subtree's yield.
"""
from __future__ import annotations

from collections import deque
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np

from spacy_planar.defaults import EXTRA_ROOT_LABEL, ROOT_LABEL
from spacy_planar.errors import Errors

# a tree of one sentence: (heads, labels) over its words 1..n, HEAD 0 for the root (CoNLL-U's numbering)
Tree = Tuple[Sequence[int], Sequence[str]]

Heads = Sequence[int]


def padded(heads: Heads) -> np.ndarray:
    """Heads as an int array of length n + 1 indexed by word: entry 0 (the
    artificial root) is -1."""
    h = np.empty(len(heads) + 1, dtype=np.int64)
    h[0] = -1
    h[1:] = heads
    return h


def tree_error(heads: Heads) -> Optional[Tuple[int, str]]:
    """Why ``heads`` is not a well-formed dependency tree: (word, reason), the
    word being 0 where the fault is the sentence's; None if well-formed.

    Well-formed: every head in 0..n, no word its own head, no cycle (so every
    word reaches the root), at least one word attached to the root.
    """
    n = len(heads)
    for i, h in enumerate(heads, 1):
        if not 0 <= h <= n:
            return i, Errors.E006.format(head=h, id=i, n=n)
        if h == i:
            return i, Errors.E007.format(id=i)
    if n and 0 not in heads:
        return 0, Errors.E009
    state = [0] * (n + 1)  # 0 unseen, 1 on current path, 2 reaches root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]
        if state[node] == 1:
            cycle = path[path.index(node):]
            return node, Errors.E008.format(cycle=" -> ".join(map(str, cycle + [node])))
        for p in path:
            state[p] = 2
    return None


def are_trees(heads: Sequence[int], lengths: Sequence[int]) -> np.ndarray:
    """For many sentences at once (their head lists concatenated), whether
    each is well-formed in the sense of :func:`tree_error`; a batch of numpy
    operations: pointer jumping doubles the reach of every word's ancestor
    pointer until all words of a tree have passed the root."""
    heads = np.asarray(heads, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if len(lengths) == 0:
        return np.zeros(0, dtype=bool)
    sent = np.repeat(np.arange(len(lengths)), lengths)
    start = (np.cumsum(lengths) - lengths)[sent]
    n = lengths[sent]
    word = np.arange(len(heads)) - start + 1
    ok = (heads >= 0) & (heads <= n) & (heads != word)
    up = np.where(ok & (heads > 0), start + heads - 1, -1)  # index of the head, -1 past the root
    for _ in range(int(lengths.max()).bit_length() + 1):  # 2^k > n jumps leave every cycle visible
        up = np.where(up >= 0, up[np.maximum(up, 0)], -1)
    faults = np.bincount(sent, weights=~(ok & (up < 0)), minlength=len(lengths))
    roots = np.bincount(sent, weights=heads == 0, minlength=len(lengths))
    return (faults == 0) & ((roots > 0) | (lengths == 0))


def dominance(heads: Heads) -> np.ndarray:
    """Boolean matrix D of shape (n+1, n+1): D[a, d] iff a ->* d (reflexive).

    Built by walking every word up to the root in parallel: one vectorised
    step per level of the tree.
    """
    h = padded(heads)
    n1 = len(h)
    dom = np.zeros((n1, n1), dtype=bool)
    cols = np.arange(n1)
    node = cols.copy()
    while True:
        live = node >= 0
        if not live.any():
            break
        dom[node[live], cols[live]] = True
        node[live] = h[node[live]]
    return dom


def leftmost_descendants(heads: Heads, dom: Optional[np.ndarray] = None) -> np.ndarray:
    """[n + 1]: the leftmost word of each word's subtree (itself included;
    the root's: 0)."""
    if dom is None:
        dom = dominance(heads)
    return dom.argmax(axis=1)


def first_sets(trees: Iterable[Tuple[Heads, Sequence[str]]]) -> Dict[str, Set[str]]:
    """FIRST of Hayashi et al. (2012), section 5.4, eq. 10: for each tag t,
    the tags of the leftmost descendants of the words tagged t in the
    ``trees`` ((heads, tags) pairs; a word with no left dependent is its own
    leftmost descendant)."""
    first: Dict[str, Set[str]] = {}
    for heads, tags in trees:
        lmd = leftmost_descendants(heads)
        for w, t in enumerate(tags, 1):
            first.setdefault(t, set()).add(tags[lmd[w] - 1])
    return first


def nonprojective_arcs(heads: Heads, dom: Optional[np.ndarray] = None) -> np.ndarray:
    """Boolean array of length n: True where the arc into word i is
    non-projective (its head does not dominate some word between them)."""
    n = len(heads)
    if n < 3:
        return np.zeros(n, dtype=bool)
    h = np.asarray(heads, dtype=np.int64)
    if dom is None:
        dom = dominance(heads)
    d = np.arange(1, n + 1)
    lo = np.minimum(h, d)[:, None]
    hi = np.maximum(h, d)[:, None]
    k = np.arange(1, n + 1)[None, :]
    between = (k > lo) & (k < hi)
    undominated = ~dom[h][:, 1:]
    return (between & undominated).any(axis=1)


def is_projective(heads: Heads) -> bool:
    return not nonprojective_arcs(heads).any()


def links(heads: Heads) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The links of the tree that planarity counts (arcs from the root are
    left out): (dependents, left ends, right ends)."""
    h = np.asarray(heads, dtype=np.int64)
    d = np.arange(1, len(h) + 1)
    keep = h > 0
    d, h = d[keep], h[keep]
    return d, np.minimum(h, d), np.maximum(h, d)


def crossings(heads: Heads) -> Tuple[np.ndarray, np.ndarray]:
    """The crossings graph: (dependents, C) where dependents[j] names link j by
    its dependent word and C[a, b] is True iff links a and b cross."""
    d, left, right = links(heads)
    c = (left[:, None] < left[None, :]) & (left[None, :] < right[:, None]) & (right[:, None] < right[None, :])
    return d, c | c.T


def is_planar(heads: Heads) -> bool:
    return not crossings(heads)[1].any()


def _components(adj: np.ndarray) -> List[List[int]]:
    """Connected components (lists of vertices) of a graph with at least one edge."""
    n = len(adj)
    seen = np.zeros(n, dtype=bool)
    comps = []
    for s in np.flatnonzero(adj.any(axis=1)):
        if seen[s]:
            continue
        comp = []
        queue = deque([s])
        seen[s] = True
        while queue:
            v = queue.popleft()
            comp.append(v)
            for w in np.flatnonzero(adj[v] & ~seen):
                seen[w] = True
                queue.append(w)
        comps.append(comp)
    return comps


def _two_colour(adj: np.ndarray, comp: List[int], colour: np.ndarray) -> bool:
    """BFS 2-colouring of one component; False if it has an odd cycle."""
    colour[comp[0]] = 0
    queue = deque([comp[0]])
    while queue:
        v = queue.popleft()
        for w in np.flatnonzero(adj[v]):
            if colour[w] < 0:
                colour[w] = 1 - colour[v]
                queue.append(w)
            elif colour[w] == colour[v]:
                return False
    return True


def _k_colour(adj: np.ndarray, comp: List[int], k: int, colour: np.ndarray) -> bool:
    """Exact k-colouring of one component by backtracking, most constrained
    vertex first (largest degree), first-fit colours with symmetry breaking."""
    order = sorted(comp, key=lambda v: -int(adj[v].sum()))
    nbrs = [np.flatnonzero(adj[v]) for v in order]

    def place(i: int, used: int) -> bool:
        if i == len(order):
            return True
        v = order[i]
        taken = {int(colour[w]) for w in nbrs[i] if colour[w] >= 0}
        # a fresh colour is interchangeable with any other fresh one
        for c in range(min(k, used + 1)):
            if c not in taken:
                colour[v] = c
                if place(i + 1, max(used, c + 1)):
                    return True
        colour[v] = -1
        return False

    for v in comp:
        colour[v] = -1
    return place(0, 0)


def plane_assignment(heads: Heads, max_planes: Optional[int] = None) -> Tuple[int, np.ndarray]:
    """A minimal plane assignment: (m, planes) where planes[i - 1] is the plane
    (0..m-1) of the arc into word i, -1 for arcs from the root.

    Section 3 of Gómez-Rodríguez & Nivre (2010): the tree is m-planar iff the
    crossings graph is m-colourable. Each connected component is coloured on its
    own: with one colour when it has no edge, by BFS when it is bipartite, and
    by exact search with 3, 4, ... colours otherwise. With ``max_planes``, the
    search stops there and returns (max_planes + 1, partial) for trees that need
    more.
    """
    n = len(heads)
    planes = np.full(n, -1, dtype=np.int64)
    deps, adj = crossings(heads)
    if len(deps) == 0:
        return 0, planes
    colour = np.zeros(len(deps), dtype=np.int64)
    m = 1
    if adj.any():
        colour[adj.any(axis=1)] = -1
        for comp in _components(adj):
            if _two_colour(adj, comp, colour):
                m = max(m, 2)
                continue
            k = 3
            while not _k_colour(adj, comp, k, colour):
                k += 1
                if max_planes is not None and k > max_planes:
                    return max_planes + 1, planes
            m = max(m, k)
    planes[deps - 1] = colour
    return m, planes


def min_planes(heads: Heads) -> int:
    """The least m such that the tree is m-planar (0 for trees with no links)."""
    return plane_assignment(heads)[0]


def yields(heads: Heads, dom: Optional[np.ndarray] = None) -> List[np.ndarray]:
    """yields[i] = sorted words dominated by word i (i = 0 is the root)."""
    if dom is None:
        dom = dominance(heads)
    return [np.flatnonzero(row) for row in dom]


def gaps(heads: Heads, dom: Optional[np.ndarray] = None) -> np.ndarray:
    """Number of gaps in the yield of each word 1..n (discontinuities)."""
    if dom is None:
        dom = dominance(heads)
    sub = dom[1:, 1:].astype(np.int8)
    # a gap starts wherever the yield stops and later resumes
    starts = np.diff(sub, axis=1, prepend=0) == 1
    return starts.sum(axis=1) - 1


def is_well_nested(heads: Heads, dom: Optional[np.ndarray] = None) -> bool:
    """False iff two disjoint subtrees interleave (a1 < b1 < a2 < b2 with the
    a's in one and the b's in the other). Only subtrees with gaps can
    interleave, so only those pairs are checked."""
    if dom is None:
        dom = dominance(heads)
    gapped = np.flatnonzero(gaps(heads, dom) > 0) + 1
    for x in range(len(gapped)):
        u = gapped[x]
        for y in range(x + 1, len(gapped)):
            v = gapped[y]
            if dom[u, v] or dom[v, u]:
                continue
            # label each word of either yield by its subtree, then count runs
            owner = dom[u, 1:].astype(np.int8) - dom[v, 1:].astype(np.int8)
            seq = owner[owner != 0]
            runs = 1 + int(np.count_nonzero(seq[1:] != seq[:-1]))
            if runs >= 4:
                return False
    return True


def analyse(heads: Heads, max_planes: int = 3) -> Dict[str, int]:
    """The structural figures of one tree (Table 1 of Gómez-Rodríguez & Nivre
    2010): non-projective arcs, whether planar, 2- and 3-planar, ill-nested."""
    dom = dominance(heads)
    np_arcs = int(nonprojective_arcs(heads, dom).sum())
    m = plane_assignment(heads, max_planes=max_planes)[0] if np_arcs else min(1, len(heads))
    ill = 0 if np_arcs == 0 else int(not is_well_nested(heads, dom))
    return {
        "words": len(heads),
        "nonprojective_arcs": np_arcs,
        "nonprojective": int(np_arcs > 0),
        "nonplanar": int(m > 1),
        "non_2planar": int(m > 2),
        "non_3planar": int(m > 3),
        "ill_nested": ill,
    }


def projective_order(heads: Heads) -> np.ndarray:
    """The projective order of Nivre (2009): order[w] is the position of word w
    (0 = the root) in an in-order traversal of the tree that keeps each head
    between its left and right dependents in their linear order."""
    n = len(heads)
    kids: List[List[int]] = [[] for _ in range(n + 1)]
    for d, h in enumerate(heads, 1):
        kids[h].append(d)
    order = np.zeros(n + 1, dtype=np.int64)
    pos = 0
    # iterative in-order walk: (node, expanded?)
    todo: List[Tuple[int, bool]] = [(0, False)]
    while todo:
        node, expanded = todo.pop()
        if expanded:
            order[node] = pos
            pos += 1
            continue
        left = [k for k in kids[node] if k < node]
        right = [k for k in kids[node] if k > node]
        todo.extend((k, False) for k in reversed(right))
        todo.append((node, True))
        todo.extend((k, False) for k in reversed(left))
    return order


def one_root(heads: Sequence[int], labels: Sequence[str], root_label: str = ROOT_LABEL,
             extra_root_label: str = EXTRA_ROOT_LABEL) -> Tuple[List[int], List[str]]:
    """The tree with one root labelled ``root_label``: every root but the one
    of the largest tree (the first on ties) is attached to that one with
    ``extra_root_label``.

    >>> one_root([0, 1, 0], ["root", "obj", "root"])
    ([0, 1, 1], ['root', 'obj', 'dep'])
    """
    roots = [i + 1 for i, h in enumerate(heads) if h == 0]
    if len(roots) <= 1:
        return list(heads), [root_label if h == 0 else label for h, label in zip(heads, labels)]
    size: Dict[int, int] = {}
    for w in range(1, len(heads) + 1):
        r = w
        while heads[r - 1] != 0:
            r = heads[r - 1]
        size[r] = size.get(r, 0) + 1
    main = max(roots, key=lambda r: (size[r], -r))
    heads, labels = list(heads), list(labels)
    for r in roots:
        if r != main:
            heads[r - 1] = main
            labels[r - 1] = extra_root_label
    labels[main - 1] = root_label
    return heads, labels
