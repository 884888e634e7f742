"""The graph-based parser: the maximum spanning tree against every tree of small graphs, the
biaffine's gradients against finite differences, and the component: it learns trees, returns one
valid tree with one root per sentence, saves and loads, and parses whitespace and batches as
single sentences."""
import itertools
import random

import numpy as np
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Model

from conftest import shortest_docs
from spacy_planar.io.doc_trees import span_tree
from spacy_planar.model.biaffine import BIAFFINE_PARAMS, GraphScorer, _biaffine_init, _no_forward
from spacy_planar.parser.graph import scoring as graph
from spacy_planar.trees.algorithms import tree_error
from spacy_planar.trees.mst import best_tree, tree_score


def every_tree(n: int, single_root: bool):
    """Every tree over n words (heads 0..n), by brute force: the reference for the decoder."""
    for heads in itertools.product(range(n + 1), repeat=n):
        if tree_error(list(heads)) is None and (not single_root or heads.count(0) == 1):
            yield list(heads)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 10**6), single_root=st.booleans(), ties=st.booleans())
def test_the_decoder_finds_the_best_tree(n, seed, single_root, ties):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n, n + 1)) * 4
    if ties:  # many equal scores: any best tree will do, its score is the best
        scores = np.round(scores / 4)
    heads = best_tree(scores, single_root)
    assert tree_error(heads) is None
    assert not single_root or heads.count(0) == 1
    best = max(tree_score(scores, h) for h in every_tree(n, single_root))
    assert tree_score(scores, heads) == pytest.approx(best)


def test_the_decoder_keeps_a_tree_that_is_already_best_and_breaks_cycles():
    # every word's best head is its left neighbour's: a chain from the root, kept
    chain = np.full((4, 5), -5.0)
    for i in range(4):
        chain[i, i] = 0.0
    assert best_tree(chain) == [0, 1, 2, 3]
    # words 1 and 2 prefer each other (a cycle); the root arc that costs least breaks it
    cycle = np.array([[-3.0, 0.0, 5.0], [-1.0, 5.0, 0.0]])
    assert best_tree(cycle) == [2, 0]
    # two words want the root; one root under the constraint, two without
    roots = np.array([[5.0, -9.0, 1.0], [5.0, 0.0, -9.0]])
    assert best_tree(roots, single_root=False) == [0, 0]
    assert best_tree(roots) == [2, 0]  # 1 + 5 over 5 + 0


def _scorer(rng):
    a, b, labels = 5, 4, 3
    model = Model("biaffine", _no_forward, init=_biaffine_init, dims={"nA": a, "nB": b, "nO": labels},
                  params={name: None for name in BIAFFINE_PARAMS})
    model.initialize()
    for name in BIAFFINE_PARAMS:  # away from zero, so that every product has a gradient
        model.set_param(name, rng.normal(size=model.get_param(name).shape).astype("float32") * 0.5)
        model.set_grad(name, np.zeros_like(model.get_param(name)))
    return model, rng.normal(size=(9, 2 * a + 2 * b))


def test_the_biaffines_gradients_are_the_losss():
    """``graph.training_loss``'s gradients (of the MLP's output and of every biaffine parameter)
    against central differences of its loss, in float64 around float32 values."""
    model, Z = _scorer(np.random.default_rng(0))
    sentences = [(0, [2, 0, 2, 3], [1, -1, 0, 2]), (4, [0, 1, 1, 2, 4], [-1, 2, 1, 0, 0])]

    def loss(Z):
        return graph.training_loss(GraphScorer(model, Z.astype("float32")), sentences)

    dZ, _ = loss(Z)
    grads = {name: model.get_grad(name).copy() for name in BIAFFINE_PARAMS}
    eps = 1e-2

    def numeric(f, x):
        out = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[idx] += eps
            down[idx] -= eps
            out[idx] = (f(up) - f(down)) / (2 * eps)
        return out

    assert np.abs(numeric(lambda z: loss(z)[1], Z) - dZ).max() < 2e-3
    for name in BIAFFINE_PARAMS:
        value = model.get_param(name).copy()

        def at(p, name=name):
            model.set_param(name, p.astype("float32"))
            return loss(Z)[1]

        expected = numeric(at, value.astype(np.float64))
        model.set_param(name, value)
        assert np.abs(expected - grads[name]).max() < 2e-3, name
        assert np.abs(expected).max() > 0.01, name  # every parameter takes part


@pytest.fixture(scope="module")
def trained():
    """The factory's biaffine_parser (its own tok2vec) trained on the 30 shortest training
    sentences of the test treebank until it fits them (seeded: its weights too)."""
    from thinc.api import fix_random_seed

    random.seed(0)
    fix_random_seed(0)
    nlp = spacy.blank("xx")
    docs = shortest_docs(nlp.vocab, 30)
    nlp.add_pipe("biaffine_parser")
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(25):
        random.shuffle(examples)
        for i in range(0, len(examples), 10):
            nlp.update(examples[i:i + 10], sgd=optimizer)
    return nlp, docs


def _words(nlp, doc):
    return Doc(nlp.vocab, words=[t.text for t in doc])


def test_the_biaffine_parser_learns_its_trees_and_gives_one_root(trained):
    nlp, docs = trained
    right = total = 0
    for gold in docs:
        heads, labels = span_tree(nlp(_words(nlp, gold)))
        assert tree_error(heads) is None and heads.count(0) == 1
        assert labels[heads.index(0)] == "root"
        g_heads, g_labels = span_tree(gold)
        right += sum(h == gh and lab == gl for h, gh, lab, gl in zip(heads, g_heads, labels, g_labels))
        total += len(heads)
    assert right / total > 0.95
    assert "root" in nlp.get_pipe("biaffine_parser").labels


def test_the_biaffine_parser_saves_loads_and_parses_batches_as_one(trained, tmp_path):
    nlp, docs = trained
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    alone = [span_tree(nlp(_words(nlp, d))) for d in docs]
    assert [span_tree(d) for d in loaded.pipe([_words(loaded, d) for d in docs], batch_size=7)] == alone
    again = spacy.blank("xx")
    again.add_pipe("biaffine_parser")
    again.from_bytes(nlp.to_bytes())
    assert span_tree(again(_words(again, docs[0]))) == alone[0]
    # each word's probability of its head and label, in (0, 1]
    probs = [t._.head_prob for t in nlp(_words(nlp, docs[0]))]
    assert all(0 < p <= 1 for p in probs)


def test_the_biaffine_parser_attaches_whitespace_without_parsing_it(trained):
    nlp, docs = trained
    words = [t.text for t in docs[0]]
    spaced = Doc(nlp.vocab, words=words[:2] + ["  "] + words[2:])
    heads, labels = span_tree(nlp(spaced))
    plain, plain_labels = span_tree(nlp(_words(nlp, docs[0])))
    assert labels[2] == "dep" and heads[2] == 2
    moved = [h if h <= 2 else h + 1 for h in plain]
    assert heads[:2] + heads[3:] == moved and labels[:2] + labels[3:] == plain_labels
