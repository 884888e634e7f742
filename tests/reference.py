"""Plain-Python reference implementations of the definitions, for tests."""
from itertools import product


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
