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
from reference import central_differences, tree_score
from spacy_planar.io.doc_trees import span_tree
from spacy_planar.parser.graph.biaffine import (BIAFFINE_PARAMS, POSITIONAL_PARAMS, GraphScorer, _biaffine_init,
                                         biaffine_forward)
from spacy_planar.parser.graph import scoring as graph
from spacy_planar.trees.algorithms import is_projective, tree_error
from spacy_planar.trees.eisner import best_projective_tree, best_projective_trees
from spacy_planar.trees.mst import best_tree


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


def _scorer(rng, positional: int = 0):
    a, b, labels = 5, 4, 3
    names = BIAFFINE_PARAMS + (POSITIONAL_PARAMS if positional else ())
    model = Model("biaffine", biaffine_forward, init=_biaffine_init,
                  dims={"nA": a, "nB": b, "nP": positional, "nO": labels}, params={name: None for name in names})
    model.initialize()
    for name in names:  # away from zero, so that every product has a gradient
        model.set_param(name, rng.normal(size=model.get_param(name).shape).astype("float32") * 0.5)
        model.set_grad(name, np.zeros_like(model.get_param(name)))
    return model, rng.normal(size=(9, 2 * a + 2 * b + 4 * positional)), names


@pytest.mark.parametrize("positional,taught,chunked", [(0, False, False), (3, False, False), (0, True, False),
                                                      (0, False, True)])
def test_the_biaffines_gradients_are_the_losss(positional, taught, chunked, monkeypatch):
    """``graph.training_loss``'s gradients (of the MLP's output and of every biaffine parameter,
    the positional scorers' with ``positional_width``; with ``taught``, the first sentence's arcs
    towards a teacher's distributions) against central differences of its loss, in float64 around
    float32 values. The positional prior enters the arc scores detached (as Stanza's does), so the
    differences hold it at its value at the point. ``chunked``: the label scorer's products two
    arcs at a time (``LABEL_CHUNK_FLOATS``)."""
    from spacy_planar.parser.graph import biaffine

    if chunked:
        monkeypatch.setattr(biaffine, "LABEL_CHUNK_FLOATS", 2 * 3 * 4)  # two arcs of 3 labels x width 4
    rng = np.random.default_rng(0)
    model, Z, names = _scorer(rng, positional)
    sentences = [(0, [2, 0, 2, 3], [1, -1, 0, 2]), (4, [0, 1, 1, 2, 4], [-1, 2, 1, 0, 0])]
    targets = None
    if taught:
        soft = rng.random((4, 5)) * (np.arange(5)[None, :] != np.arange(4)[:, None] + 1)
        targets = [soft / soft.sum(axis=1, keepdims=True), None]

    def loss(Z):
        return graph.training_loss(GraphScorer(model, Z.astype("float32")), sentences, targets)

    dZ, _ = loss(Z)
    grads = {name: model.get_grad(name).copy() for name in names}
    if positional:
        priors = []
        prior_of = graph.positional_prior
        monkeypatch.setattr(graph, "positional_prior", lambda *a: priors.append(prior_of(*a)) or priors[-1])
        loss(Z)
        monkeypatch.setattr(graph, "positional_prior", lambda *a: priors[0])
        assert np.abs(priors[0]).max() > 0.1  # the prior takes part in the scores
    assert np.abs(central_differences(lambda z: loss(z)[1], Z) - dZ).max() < 2e-3
    for name in names:
        value = model.get_param(name).copy()

        def at(p, name=name):
            model.set_param(name, p.astype("float32"))
            return loss(Z)[1]

        expected = central_differences(at, value.astype(np.float64))
        model.set_param(name, value)
        assert np.abs(expected - grads[name]).max() < 2e-3, name
        assert np.abs(expected).max() > 0.01, name  # every parameter takes part


def test_the_positional_prior_favours_the_side_and_distance_it_predicts():
    """A linearization score that says "head to the right" and a distance score that says "one
    word away" make the right neighbour the likeliest candidate of every word."""
    xp = np
    T = 4
    lin = np.full((1, T, T + 1), 5.0, dtype="float32")
    dist = np.full((1, T, T + 1), -20.0, dtype="float32")  # predicted distance 1 + softplus(-20) ~ 1
    prior = graph.positional_prior(xp, lin, dist)
    valid = graph.candidates(xp, [T], T)
    best = np.where(valid, prior, -np.inf)[0, :T - 1].argmax(axis=1)
    assert best.tolist() == [2, 3, 4]  # word i (column i) takes word i + 2 (the next one, 1-based)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 10**6), single_root=st.booleans())
def test_the_projective_decoder_finds_the_best_projective_tree(n, seed, single_root):
    scores = np.random.default_rng(seed).normal(size=(n, n + 1)) * 4
    heads = best_projective_tree(scores, single_root)
    assert tree_error(heads) is None and is_projective(heads)
    assert not single_root or heads.count(0) == 1
    best = max(tree_score(scores, h) for h in every_tree(n, single_root) if is_projective(h))
    assert tree_score(scores, heads) == pytest.approx(best)


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.integers(0, 12), min_size=1, max_size=6), seed=st.integers(0, 10**6),
       single_root=st.booleans())
def test_the_projective_decoder_decodes_a_batch_as_each_sentence_alone(lengths, seed, single_root):
    """The batched tables (a group of similar lengths padded to its longest) give each sentence the tree it gets
    decoded alone (the best projective tree, by brute force above): the pad changes nothing.
    (Brute force here took 20 minutes: 8 ** 7 head lists for each sentence of 7 words.)"""
    rng = np.random.default_rng(seed)
    graphs = [rng.normal(size=(n, n + 1)) * 4 for n in lengths]
    trees = best_projective_trees(graphs, single_root)
    assert [len(heads) for heads in trees] == lengths
    for scores, heads in zip(graphs, trees):
        if len(heads):
            alone = best_projective_tree(scores, single_root)
            assert tree_error(heads) is None and is_projective(heads)
            assert tree_score(scores, heads) == pytest.approx(tree_score(scores, alone))


@pytest.fixture(scope="module")
def trained():
    """The factory's biaffine_parser (its own tok2vec) trained on the 30 shortest training
    sentences of the test treebank until it fits them (seeded: its weights too)."""
    return _fitted({})


def _fitted(config: dict):
    """``_biaffine_nlp(config)`` trained 25 epochs in batches of 10: (nlp, docs)."""
    nlp, docs, examples, optimizer = _biaffine_nlp(config)
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


def _spaced(nlp, doc, at):
    """``doc``'s words with a whitespace token before each position of ``at`` (len(doc): after the
    last word; a position twice: two whitespace tokens in a row)."""
    words = [t.text for t in doc]
    out = []
    for i in range(len(words) + 1):
        out += ["  "] * list(at).count(i) + words[i:i + 1]
    return Doc(nlp.vocab, words=out)


def test_the_biaffine_parser_attaches_whitespace_by_rule(trained):
    """Whitespace tokens (at a sentence's start, inside it, two in a row, at its end) are not words
    of the tree: each hangs on the word before it (the first word after it at the start) with the
    extra root label and heads nothing; the words keep one root and a tree. (Which head each *word*
    takes may change: the encoder reads a whitespace token as context, as spaCy's tok2vec does.)"""
    nlp, docs = trained
    for doc in docs[:10]:
        spaced = nlp(_spaced(nlp, doc, [0, 2, 2, len(doc)]))
        heads, labels = span_tree(spaced)
        words = [t.i for t in spaced if not t.is_space]
        assert len(spaced) == len(doc) + 4 and len(words) == len(doc)
        for t in spaced:
            if t.is_space:
                before = [w for w in words if w < t.i]
                assert (t.head.i, t.dep_) == (before[-1] if before else words[0], "dep")
                assert not list(t.children)
        assert [h for i, h in enumerate(heads) if i in words].count(0) == 1 and tree_error(heads) is None
        assert all(labels[i] != "dep" or heads[i] > 0 for i in words)
    assert span_tree(nlp(Doc(nlp.vocab, words=["  ", "\n"]))) == ([0, 1], ["root", "dep"])


WORD_BY_WORD = {"@architectures": "spacy.Tok2Vec.v2",
                "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 64, "include_static_vectors": False,
                          "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE"], "rows": [2000, 500, 500, 500]},
                "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 64, "window_size": 0,
                           "maxout_pieces": 2, "depth": 1}}


def test_the_biaffine_parser_neither_scores_nor_counts_whitespace():
    """With an encoder that reads each token alone (no window), nothing of a whitespace token can
    reach the words: their arcs, labels and probabilities are those of the Doc without it. This
    is what 'not parsed' means: the whitespace is no candidate head, no step of the positional
    scorers' distances, no row of the decoder. (The factory's encoder reads a window and a BiLSTM,
    whose context a whitespace token is: with it, about one insertion in five moves some arc,
    and which one depends on the trained weights, so on the machine's BLAS; see the test above.)"""
    nlp, docs = _fitted({"model": {"@architectures": "spacy-planar.BiaffineModel.v2", "arc_width": 64,
                                   "label_width": 32, "positional_width": 16, "tok2vec": WORD_BY_WORD}})
    for doc in docs:
        plain = nlp(_words(nlp, doc))
        heads, labels = span_tree(plain)
        for at in ([1], [0, len(doc)], [len(doc) // 2, len(doc) // 2]):
            spaced = nlp(_spaced(nlp, doc, at))
            words = [t for t in spaced if not t.is_space]
            position = {t.i: k for k, t in enumerate(words)}
            assert [position[t.head.i] + 1 if t.head.i != t.i else 0 for t in words] == heads
            assert [t.dep_ for t in words] == labels
            assert [t._.head_prob for t in words] == pytest.approx([t._.head_prob for t in plain], abs=2e-4)


# --- the settings that bring it near the leaders' training (issue 79's probes) ---------------------
EVERY_SETTING = {
    "decoder": "eisner", "pseudo_projective": "head+path", "loss_per_word": True,
    "model": {"@architectures": "spacy-planar.BiaffineModel.v1", "arc_width": 64, "label_width": 32,
              "positional_width": 16, "input_dropout": 0.3, "mlp_dropout": 0.3,
              "encoder": {"@architectures": "spacy-planar.BiLSTMEncoder.v1", "width": 96, "depth": 1,
                          "cnn_depth": 0, "dropout": 0.1}},
}


def _biaffine_nlp(config: dict, n: int = 30):
    from copy import deepcopy

    from thinc.api import fix_random_seed

    from spacy_planar.parser.graph.component import DEFAULT_MODEL

    random.seed(0)
    fix_random_seed(0)
    nlp = spacy.blank("xx")
    docs = shortest_docs(nlp.vocab, n)
    config = deepcopy(config)
    if "model" in config:
        config["model"].setdefault("tok2vec", dict(DEFAULT_MODEL["model"]["tok2vec"]))
    nlp.add_pipe("biaffine_parser", config=config)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    return nlp, docs, examples, nlp.initialize(lambda: examples)


@pytest.fixture(scope="module")
def trained_every_setting():
    """The biaffine_parser with every setting on (its own BiLSTM, positional scorers, fixed
    dropouts, Eisner decoding of pseudo-projective trees, the loss per word), trained as ``trained``."""
    return _fitted(EVERY_SETTING)


def test_every_setting_on_learns_projective_trees_with_plain_labels(trained_every_setting, tmp_path):
    nlp, docs = trained_every_setting
    parser = nlp.get_pipe("biaffine_parser")
    assert nlp.get_pipe("biaffine_parser").model.has_ref("encoder")
    right = total = 0
    for gold in docs:
        unit, = parser.predict([nlp.make_doc(" ".join(t.text for t in gold))])[0]
        decoded = unit.tree[0]
        assert is_projective(decoded)  # Eisner's tree, before deprojectivize
        heads, labels = span_tree(nlp(_words(nlp, gold)))
        assert tree_error(heads) is None and heads.count(0) == 1
        assert not any("↑" in label or "↓" in label for label in labels)
        g_heads, g_labels = span_tree(gold)
        right += sum(h == gh and lab == gl for h, gh, lab, gl in zip(heads, g_heads, labels, g_labels))
        total += len(heads)
    assert right / total > 0.9
    assert parser.labels == tuple(sorted(parser.labels))
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("biaffine_parser").settings.decoder == "eisner"
    assert span_tree(loaded(_words(loaded, docs[0]))) == span_tree(nlp(_words(nlp, docs[0])))


def test_pseudo_projective_training_learns_the_encodings_labels():
    """On a non-projective gold tree the codec gives the lifted arc its marked label, which the
    parser learns as a label of its own; deprojectivize takes it back to the tree."""
    from spacy_planar.parser.graph.component import GraphEncoding

    heads, labels = [3, 4, 0, 3], ["nsubj", "obj", "root", "punct"]  # 1 -> 3 crosses 2 -> 4
    encoding = GraphEncoding("head+path")
    projective = encoding.prepare_tree(heads, labels)
    assert is_projective(projective[0]) and projective != (heads, labels)
    assert any("↑" in label for label in projective[1])
    assert encoding.decode_tree(*projective) == (heads, labels)
    assert GraphEncoding(None).prepare_tree(heads, labels) == (heads, labels)


def test_the_loss_per_word_is_the_summed_loss_over_the_words():
    losses = []
    for per_word in (False, True):
        nlp, docs, examples, _ = _biaffine_nlp({"loss_per_word": per_word}, n=6)
        losses.append(nlp.update(examples, sgd=False, drop=0.0)["biaffine_parser"])
    words = sum(len(d) for d in docs)
    assert losses[1] == pytest.approx(losses[0] / words, rel=1e-4)


def test_the_fixed_dropouts_keep_their_rate_whatever_training_dropout_says():
    from thinc.api import set_dropout_rate

    from spacy_planar.parser.graph.biaffine import FIXED_RATE, build_biaffine_model

    model = build_biaffine_model(Model("t", lambda m, X, t: (X, None)), mlp_dropout=0.4, input_dropout=0.2)
    fixed = [node for node in model.walk() if node.name == "fixed_dropout"]
    set_dropout_rate(model, 0.9)
    assert sorted(node.attrs[FIXED_RATE] for node in fixed) == [0.2, 0.4]
    X = np.ones((200, 50), dtype="float32")
    dropped, _ = fixed[0](X, is_train=True)
    assert 0.6 < (dropped == 0).mean() < 0.9 or 0.1 < (dropped == 0).mean() < 0.3
    assert (fixed[0](X, is_train=False)[0] == X).all()
    # the default: no fixed dropout, the MLP's rate is training.dropout's
    assert not [node for node in build_biaffine_model(Model("t", lambda m, X, t: (X, None))).walk()
                if node.name == "fixed_dropout"]


def test_an_unknown_decoder_is_refused_in_one_line():
    from spacy_planar.errors import UserError

    nlp = spacy.blank("xx")
    with pytest.raises(UserError, match="decoder 'cky'"):
        nlp.add_pipe("biaffine_parser", config={"decoder": "cky"})


def test_a_gold_label_unseen_at_initialize_is_refused_not_trained_as_none():
    from spacy_planar.errors import UserError

    nlp, docs, examples, optimizer = _biaffine_nlp({}, n=6)
    gold = docs[0].copy()
    child = next(t for t in gold if t.head.i != t.i)
    child.dep_ = "never:seen"
    with pytest.raises(UserError) as e:
        nlp.update([Example(_words(nlp, gold), gold)], sgd=optimizer)
    assert e.value.code == "E118" and "never:seen" in str(e.value)


def test_a_pipeline_saved_with_v1_loads_as_it_was_trained(tmp_path):
    """The factory's model is BiaffineModel.v2 (the positional scorers at 100); a config of v1
    without ``positional_width`` (every pipeline saved before) keeps v1's default, 0, so that its
    saved weights load."""
    from spacy_planar.parser.graph.component import DEFAULT_MODEL

    nlp = spacy.blank("xx")
    assert nlp.add_pipe("biaffine_parser").model.get_ref("biaffine").get_dim("nP") == 100
    old = {key: value for key, value in DEFAULT_MODEL["model"].items() if key != "positional_width"}
    old["@architectures"] = "spacy-planar.BiaffineModel.v1"
    nlp, docs, examples, _ = _biaffine_nlp({"model": old}, n=6)
    assert nlp.get_pipe("biaffine_parser").model.get_ref("biaffine").get_dim("nP") == 0
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("biaffine_parser").model.get_ref("biaffine").get_dim("nP") == 0
    assert span_tree(loaded(_words(loaded, docs[0]))) == span_tree(nlp(_words(nlp, docs[0])))


def test_a_teachers_heads_are_the_arc_loss_target_mixed_with_the_gold_ones():
    """``arc_loss`` towards the gold heads' one-hot rows as a target is the gold loss; a
    teacher's targets (``HeadTargets``) mix its distributions with the gold heads by its weight,
    for the sentences it was asked about only; a weight outside (0, 1] is refused (E061)."""
    from thinc.api import NumpyOps

    from spacy_planar.errors import UserError
    from spacy_planar.parser.graph.teachers import HeadTargets

    ops = NumpyOps()
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(1, 3, 4)).astype("float32")
    gold = np.array([[2, 0, 2]])
    onehot = (np.arange(4)[None, None, :] == gold[..., None]).astype("float32")
    hard, hard_loss = graph.arc_loss(ops, scores, [3], gold)
    soft, soft_loss = graph.arc_loss(ops, scores, [3], gold, onehot)
    assert np.allclose(hard, soft) and soft_loss == pytest.approx(hard_loss)
    teacher_arcs = {("a", "b", "c"): np.array([[0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 1, 0]], dtype="float32")}
    asked = []

    def teacher(docs):
        asked.extend(tuple(t.text for t in d) for d in docs)
        return [teacher_arcs[tuple(t.text for t in d)] for d in docs]

    vocab = spacy.blank("xx").vocab
    targets = HeadTargets(teacher, vocab, [("a", "b", "c"), ("a", "b", "c")], 0.25, "p")
    assert asked == [("a", "b", "c")] and len(targets) == 1  # each sentence asked once
    expected = 0.25 * teacher_arcs[("a", "b", "c")] / 2 + 0.75 * onehot[0]
    assert np.allclose(targets.of(["a", "b", "c"], [2, 0, 2]), expected)
    assert targets.of(["a", "c"], [0, 1]) is None
    lifted = targets.of(["a", "b", "c"], [1, 0, 2], kept=[False, True, True])  # the first word's arc lifted
    assert np.allclose(lifted[0], [0, 1, 0, 0]) and np.allclose(lifted[1:], expected[1:])
    with pytest.raises(UserError, match="E061"):
        HeadTargets(teacher, vocab, [], 0.0, "p")


def test_a_distilled_biaffine_parses_as_its_teacher_does():
    """A biaffine taught by a teacher of heads (``initialize``'s ``teachers``) learns the
    teacher's heads, not the gold trees': a teacher that attaches every word to the word before
    it teaches a student, trained on the real trees, to do so on held-out sentences (0.67 of
    words, 0.10 without it); so does a student of pseudo-projective trees. A student whose trees
    the teacher's heads are not (Nilsson's transforms) is refused (E138)."""
    from conftest import first_docs, fixture_path
    from spacy_planar.errors import UserError

    def chains(docs):
        out = []
        for doc in docs:
            n = len(doc)
            arcs = np.zeros((n, n + 1), dtype="float32")
            arcs[np.arange(n), np.arange(n)] = 1.0  # word i's head: word i - 1 (1-based i), the root for the first
            out.append(arcs)
        return out

    def trained(config, teachers=None):
        nlp, docs, examples, _ = _biaffine_nlp(config, n=40)
        if teachers is not None:
            nlp.config["initialize"]["components"]["biaffine_parser"] = {"teachers": teachers}
        optimizer = nlp.initialize(lambda: examples)
        for _ in range(12):
            for i in range(0, len(examples), 8):
                nlp.update(examples[i:i + 8], sgd=optimizer)
        return nlp

    held = first_docs(fixture_path("dev"), spacy.blank("xx").vocab, 30)

    def chained(nlp):  # the share of words attached to the word before them
        parsed = [nlp(_words(nlp, d)) for d in held]
        return np.mean([t.head.i == t.i - 1 for d in parsed for t in d if t.i > 0])

    from spacy.util import registry

    registry.misc("test.chains.v1", func=lambda: chains)  # as a config names a teacher: resolved at initialize
    taught = trained({}, {"@misc": "test.chains.v1"})
    assert chained(taught) > 0.5  # (the positional scorers learn the gold trees' sides and distances)
    assert chained(taught) > chained(trained({})) + 0.3
    assert chained(trained({"pseudo_projective": "head+path"}, {"@misc": "test.chains.v1"})) > 0.5
    with pytest.raises(UserError, match="E138"):
        trained({"tree_transforms": ["coordination-ms"]}, {"@misc": "test.chains.v1"})
    # a sentence the teachers were not asked about learns its gold heads alone, never silently (W127)
    from spacy_planar.errors import UnexpectedError

    nlp, docs, examples, _ = _biaffine_nlp({}, n=6)
    nlp.config["initialize"]["components"]["biaffine_parser"] = {"teachers": {"@misc": "test.chains.v1"}}
    optimizer = nlp.initialize(lambda: examples)
    nlp.update(examples, sgd=optimizer)  # every sentence taught
    gold = docs[0]
    other = Doc(nlp.vocab, words=[t.text + "x" for t in gold], heads=[t.head.i for t in gold],
                deps=[t.dep_ for t in gold])
    with pytest.raises(UnexpectedError, match="W127"):
        nlp.update([Example(_words(nlp, other), other)], sgd=optimizer)


@settings(max_examples=150, deadline=None)
@given(lengths=st.lists(st.integers(0, 7), min_size=1, max_size=5), seed=st.integers(0, 10**6),
       single_root=st.booleans(), peaked=st.booleans())
def test_many_sentences_decode_to_the_best_tree_each(lengths, seed, single_root, peaked):
    """``best_trees`` (each word's best head where that is a tree, else Chu-Liu-Edmonds) gives
    each sentence a tree of the best score, with one root under ``single_root``: on graphs whose
    best heads are a tree (``peaked``: a random tree's arcs raised) and on any."""
    from spacy_planar.trees.mst import best_trees

    rng = np.random.default_rng(seed)
    graphs = []
    for n in lengths:
        scores = rng.normal(size=(n, n + 1))
        if peaked and n:
            order = rng.permutation(n) + 1  # a random tree: each word's head earlier in the order, or the root
            for k, word in enumerate(order):
                scores[word - 1, order[rng.integers(k)] if k else 0] += 10
        graphs.append(scores)
    trees = best_trees(graphs, single_root)
    assert [len(heads) for heads in trees] == lengths
    for scores, heads in zip(graphs, trees):
        if len(heads):
            assert tree_error(heads) is None and (not single_root or heads.count(0) == 1)
            assert tree_score(scores, heads) == pytest.approx(tree_score(scores, best_tree(scores, single_root)))
