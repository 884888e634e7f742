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
