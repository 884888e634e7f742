"""Hypothesis strategies: random dependency trees, projective or not."""
from hypothesis import strategies as st


@st.composite
def trees(draw, min_words: int = 1, max_words: int = 30, max_roots: int = 1):
    """A random tree over words 1..n: attach the words in a random order, each
    to the root or to a word attached before it."""
    n = draw(st.integers(min_words, max_words))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [0] * n
    roots = 1
    for k, w in enumerate(order):
        if k == 0:
            continue
        choice = draw(st.integers(0 if roots < max_roots else 1, k))
        if choice == 0:
            roots += 1
            heads[w - 1] = 0
        else:
            heads[w - 1] = order[choice - 1]
    return heads


LABELS = ["nsubj", "obj", "obl", "obl:arg", "advmod", "det", "case", "conj", "cc", "nmod"]


@st.composite
def labelled_trees(draw, **kw):
    heads = draw(trees(**kw))
    labels = [draw(st.sampled_from(LABELS)) for _ in heads]
    for i, h in enumerate(heads):
        if h == 0:
            labels[i] = "root"
    return heads, labels


@st.composite
def projective_trees(draw, min_words: int = 1, max_words: int = 30):
    """A random projective tree: each span picks its head, whose dependents
    split the rest of the span into contiguous sub-spans."""
    n = draw(st.integers(min_words, max_words))
    heads = [0] * n

    def build(lo: int, hi: int, head: int) -> None:  # words lo..hi-1 under head
        if lo >= hi:
            return
        root = draw(st.integers(lo, hi - 1))
        heads[root - 1] = head
        build(lo, root, root) if draw(st.booleans()) else split(lo, root, root)
        build(root + 1, hi, root) if draw(st.booleans()) else split(root + 1, hi, root)

    def split(lo: int, hi: int, head: int) -> None:  # several dependents of head
        if lo >= hi:
            return
        cut = draw(st.integers(lo + 1, hi))
        build(lo, cut, head)
        split(cut, hi, head)

    build(1, n + 1, 0)
    return heads


@st.composite
def one_lift_trees(draw, max_words: int = 30):
    """A projective tree with one arc i -> k moved down to a sibling j of k:
    projectivizing it needs exactly one lift whenever j -> k is non-projective."""
    heads = draw(projective_trees(min_words=4, max_words=max_words))
    labels = [draw(st.sampled_from(LABELS)) for _ in heads]
    moves = [(k, j) for k in range(1, len(heads) + 1) for j in range(1, len(heads) + 1)
             if j != k and heads[k - 1] != 0 and heads[j - 1] == heads[k - 1]]
    if moves:
        k, j = draw(st.sampled_from(moves))
        heads[k - 1] = j
    return heads, labels


# labels of ordinary dependents in ``ud_trees`` (no cc / punct: UD-like separators are made apart)
DEP_LABELS = ["nsubj", "obj", "obl", "advmod", "amod", "det", "case", "nmod"]


def _place(pieces, attach):
    """Concatenate phrases (token lists [(head index in the list, or -1 for
    the phrase head's head), label]); ``attach(k, positions)`` gives the
    position the head of piece k hangs on (-1: out of this phrase)."""
    out, positions = [], []
    for toks in pieces:
        start = len(out)
        positions.append(start + next(i for i, (h, _) in enumerate(toks) if h == -1))
        out.extend([(h + start if h >= 0 else -1, label) for h, label in toks])
    for k, pos in enumerate(positions):
        out[pos] = (attach(k, positions), out[pos][1])
    return out


@st.composite
def ud_trees(draw, depth: int = 3, verb_labels=("aux", "aux:pass", "cop")):
    """A random projective tree annotated as UD annotates coordination and
    verb groups: a phrase is a word with dependents on either side, a
    coordination (2-4 conjunct phrases, the first the head, later ones
    ``conj`` on it, 0-2 ``cc`` / ``punct`` separators before each later
    conjunct on that conjunct, maybe shared dependents of C1 left of it and
    right of the last conjunct; conjuncts may be coordinations themselves),
    or a verb group (a main verb with 1-3 auxiliaries among its
    dependents on either side). Returns (heads, labels)."""

    def phrase(level: int, label: str):
        if level <= 0:
            return [(-1, label)]
        kind = draw(st.sampled_from(["word", "coord", "verb"]))
        if kind == "coord":
            roles, pieces = [], []
            if draw(st.booleans()):
                roles.append("shared")
                pieces.append(phrase(level - 1, draw(st.sampled_from(DEP_LABELS))))
            for k in range(draw(st.integers(2, 4))):
                if k:
                    for _ in range(draw(st.integers(0, 2))):
                        roles.append("sep")
                        pieces.append([(-1, draw(st.sampled_from(["cc", "punct"])))])
                roles.append("c1" if k == 0 else "conj")
                pieces.append(phrase(level - 1, label if k == 0 else "conj"))
            if draw(st.booleans()):
                roles.append("shared")
                pieces.append(phrase(level - 1, draw(st.sampled_from(DEP_LABELS))))

            def attach(k, positions):
                c1 = positions[roles.index("c1")]
                if roles[k] == "c1":
                    return -1
                if roles[k] == "sep":  # on the conjunct after it
                    return min(p for p, r in zip(positions, roles) if r == "conj" and p > positions[k])
                return c1

            return _place(pieces, attach)
        left = [phrase(level - 1, draw(st.sampled_from(DEP_LABELS))) for _ in range(draw(st.integers(0, 2)))]
        right = [phrase(level - 1, draw(st.sampled_from(DEP_LABELS))) for _ in range(draw(st.integers(0, 2)))]
        if kind == "verb":
            for _ in range(draw(st.integers(1, 3))):
                side = left if draw(st.booleans()) else right
                side.insert(draw(st.integers(0, len(side))), [(-1, draw(st.sampled_from(list(verb_labels))))])
        head = len(left)
        return _place(left + [[(-1, label)]] + right, lambda k, positions: -1 if k == head else positions[head])

    toks = phrase(depth, "root")
    return [h + 1 if h >= 0 else 0 for h, _ in toks], [label for _, label in toks]
