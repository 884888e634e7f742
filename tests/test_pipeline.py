"""The planar_parser component: training, parsing, serialization, edge cases."""
import random
from dataclasses import replace

import numpy as np
import pytest
import spacy
from conftest import first_docs, fixture_path
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import fix_random_seed

from spacy_planar.eval.metrics import evaluate
from spacy_planar.parser.transition.factory import DEFAULT_MODEL
from spacy_planar.trees.algorithms import tree_error
from spacy_planar.trees.pseudoproj import LIFT_MARK, PATH_MARK

SYSTEMS = {
    "arc_eager": {"@transition_systems": "spacy-planar.arc_eager.v1", "encoding": "head+path"},
    "planar": {"@transition_systems": "spacy-planar.planar.v1"},
    "two_planar": {"@transition_systems": "spacy-planar.two_planar.v1"},
    "swap": {"@transition_systems": "spacy-planar.swap.v1", "oracle": "lazy"},
    "top_down": {"@transition_systems": "spacy-planar.top_down.v1", "encoding": "head+path", "pred_size": 5},
}
# arc-eager listening to a shared tok2vec, exploring, labels apart, on coordination-ps+ trees
LISTENING = "arc_eager+listener+labels_apart+coordination-ps+"
ARC_WIDTH = 64  # top-down's arc scorer (weighted prediction)
# spaCy's optimizer at four times its default learning rate for 8 epochs on the test treebank's 120
# shortest training sentences (16 words a sentence, at most 24), each pipeline from seed 0: fits 84-98
# (floor 80), held-out LAS on the dev sentences 13-17, UAS 28-35 against the chain's 15 (floors 8
# and chain + 10). Swap with the beam's global loss fits 76-82 so (seeds 0-2): it keeps 10 epochs at
# three times (fits 83-90)
N_TRAIN, N_HELD_OUT, EPOCHS, LEARN_RATE = 120, 60, 8, 0.004
GLOBAL_EPOCHS, GLOBAL_LEARN_RATE = 10, 0.003
# the parsers get spaCy's CNN, not the factory's BiLSTM, their own or a tok2vec component's: these tests
# are of the systems and the component, and the CNN trains in half the time (test_encoders and the
# configs' tests train the BiLSTM)
CNN = {"@architectures": "spacy.HashEmbedCNN.v2", "width": 96, "depth": 2, "embed_size": 2000, "window_size": 1,
       "maxout_pieces": 3, "subword_features": True, "pretrained_vectors": None}


def words_only(nlp, doc):
    return Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])


def tree_of(doc):
    return [0 if t.head.i == t.i else t.head.i + 1 for t in doc], [t.dep_ for t in doc]


@pytest.fixture(scope="module")
def sentences():
    vocab = spacy.blank("xx").vocab
    docs = sorted(first_docs(fixture_path(), vocab, 240), key=len)[:N_TRAIN]
    held_out = first_docs(fixture_path("dev"), vocab, N_HELD_OUT)
    return docs[:N_TRAIN], held_out


LISTENER = {"@architectures": "spacy-planar.PlanarParserModel.v1",
            "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "*"}}


def train_pipeline(system, train_docs, epochs=EPOCHS, shared_tok2vec=False, labels_apart=False,
                   learn_rate=LEARN_RATE, **cfg):
    """Train on gold words, from seed 0; with ``shared_tok2vec``, the parser
    listens to a tok2vec component (as in the configs) instead of owning one."""
    fix_random_seed(0)
    nlp = spacy.blank("xx")
    if shared_tok2vec:
        nlp.add_pipe("tok2vec", config={"model": CNN})
        cfg["model"] = dict(LISTENER, labels_apart=labels_apart)
    else:
        cfg.setdefault("model", dict(DEFAULT_MODEL["model"], tok2vec=CNN))
    if system == "top_down":  # static oracle only (the factory's default explores, as 2-planar does)
        cfg["model"] = dict(cfg.get("model", DEFAULT_MODEL["model"]), arc_width=ARC_WIDTH)
        cfg.setdefault("exploration", 0.0)
        cfg.setdefault("exploration_nonprojective", None)
    nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS[system], **cfg})
    examples = [Example(words_only(nlp, d), d) for d in train_docs]
    sgd = nlp.initialize(lambda: examples)
    sgd.learn_rate = learn_rate
    rng = random.Random(0)
    for _ in range(epochs):
        rng.shuffle(examples)
        for i in range(0, len(examples), 16):
            nlp.update(examples[i:i + 16], sgd=sgd)
    return nlp


@pytest.fixture(scope="module")
def trained(sentences):
    train_docs, _ = sentences
    # 2-planar as configs/two_planar.cfg trains it: towards its narrowed exploration targets, half the time
    # following its own predictions, never on sentences with a non-projective gold tree (the factory's
    # exploration, 90% of the time on every sentence, is arc-eager's here)
    options = {"two_planar": {"exploration": 0.5, "exploration_nonprojective": 0.0}}
    pipes = {name: train_pipeline(name, train_docs, **options.get(name, {})) for name in SYSTEMS}
    # arc-eager as the shipped configs train it, with exploration (its dynamic oracle: its own predictions
    # 90% of the time) listening to a shared tok2vec (whose outputs exist only in training mode); with
    # its labels (pseudo-projective marks included) scored apart from its moves, on Prague-style
    # coordination (Nilsson 2007), shared dependents marked: one parser for the three options
    pipes[LISTENING] = train_pipeline("arc_eager", train_docs, shared_tok2vec=True, exploration=0.9,
                                      labels_apart=True, tree_transforms=["coordination-ps+"])
    # swap trained with the beam's global loss (early update), parsing with the same beam
    pipes["swap+global"] = train_pipeline("swap", train_docs, epochs=GLOBAL_EPOCHS, shared_tok2vec=True,
                                          learn_rate=GLOBAL_LEARN_RATE, beam_width=4, beam_update="global")
    return pipes


def scores(nlp, gold_docs):
    parsed = list(nlp.pipe(words_only(nlp, d) for d in gold_docs))
    for doc in parsed:
        heads, _ = tree_of(doc)
        assert tree_error(heads) is None
    return evaluate([(tree_of(g), tree_of(p)) for g, p in zip(gold_docs, parsed)])


@pytest.mark.parametrize("system", sorted(SYSTEMS) + [LISTENING, "swap+global"])
def test_fits_training_data_and_beats_baseline(trained, sentences, system):
    train_docs, held_out = sentences
    nlp = trained[system]
    fit = scores(nlp, train_docs)
    assert fit["LAS"] > 80.0, fit
    # trivial baseline: every word attached to the word before it
    chain = evaluate([(tree_of(g), (list(range(len(g))), ["dep"] * len(g))) for g in held_out])
    held = scores(nlp, held_out)
    assert held["UAS"] > chain["UAS"] + 10, (held, chain)
    # on 120 short sentences of Dante's Latin (held-out LAS 13-17, UAS 28-35 against the chain's 15;
    # docs/results.md has them on whole treebanks); an untrained or broken parser scores under 6
    assert held["LAS"] > 8.0


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_arc_probabilities_rank_held_out_arcs(trained, sentences, system):
    """With a beam, ``Token._.head_prob`` (uncalibrated: the confidence of
    ``kbest.arc_confidence``) puts the right arcs of held-out sentences above
    the wrong ones, and better than the beam marginal alone, which gives the
    arcs its trees agree on one value."""
    from spacy_planar.eval.metrics import ranking
    from spacy_planar.parser.transition.kbest import arc_probabilities

    _, held_out = sentences
    parser = trained[system].get_pipe("planar_parser")
    kept = parser.settings
    parser.settings = replace(kept, beam_width=8, n_best=8)
    try:
        parsed = list(trained[system].pipe(words_only(trained[system], d) for d in held_out))
    finally:
        parser.settings = kept
    conf, marginal, right = [], [], []
    for gold, doc in zip(held_out, parsed):
        heads, labels = tree_of(doc)
        (alts,) = doc._.parses
        conf += [t._.head_prob for t in doc]
        marginal += arc_probabilities([(p["prob"], p["heads"], p["labels"]) for p in alts],
                                      alts[0]["heads"], alts[0]["labels"]).tolist()
        right += [a == b for a, b in zip(zip(heads, labels), zip(*tree_of(gold)))]
    ours, beam_only = ranking(conf, right)["AUROC"], ranking(marginal, right)["AUROC"]
    assert ours > max(0.65, beam_only + 0.03), (ours, beam_only)


@pytest.mark.parametrize("option", ["exploration", "exploration_nonprojective"])
def test_exploration_is_a_probability(option):
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match="E061"):
        nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS["arc_eager"], option: 1.5})


def test_decorated_labels_stay_inside(trained, sentences):
    nlp = trained["arc_eager"]
    parser = nlp.get_pipe("planar_parser")
    assert any(LIFT_MARK in l for l in parser.cfg["labels"])  # learned decorated actions, none dropped
    for label in list(parser.labels) + list(parser.label_data):
        assert LIFT_MARK not in label and PATH_MARK not in label
    _, held_out = sentences
    for doc in nlp.pipe(words_only(nlp, d) for d in held_out):
        assert all(LIFT_MARK not in t.dep_ and PATH_MARK not in t.dep_ for t in doc)
    examples = [Example(nlp(words_only(nlp, d)), d) for d in held_out[:50]]
    per_type = nlp.get_pipe("planar_parser").score(examples)["dep_las_per_type"]
    assert all(LIFT_MARK not in l and PATH_MARK not in l for l in per_type)


@pytest.mark.parametrize("system", sorted(SYSTEMS) + [LISTENING])
def test_serialization_round_trip(trained, sentences, system, tmp_path):
    nlp = trained[system]
    _, held_out = sentences
    texts = [words_only(nlp, d) for d in held_out[:40]]
    before = [tree_of(d) for d in nlp.pipe(texts)]
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    assert [tree_of(d) for d in loaded.pipe(words_only(loaded, d) for d in texts)] == before
    again = spacy.blank("xx")
    for name in nlp.pipe_names:  # the same components, from the trained pipeline's config
        config = {k: v for k, v in nlp.get_pipe_config(name).items() if k != "factory"}
        again.add_pipe(nlp.get_pipe_config(name)["factory"], name=name, config=config)
    again.from_bytes(nlp.to_bytes())
    assert [tree_of(d) for d in again.pipe(words_only(again, d) for d in texts)] == before
    # nlp.pipe and nlp() agree
    assert [tree_of(nlp(words_only(nlp, d))) for d in texts[:10]] == before[:10]
    # options come from the config, so that they can be overridden at load time
    one = spacy.load(tmp_path / "pipe", config={"components": {"planar_parser": {"single_root": True}}})
    assert one.get_pipe("planar_parser").cfg["single_root"]
    assert all(sum(1 for h in tree_of(d)[0] if h == 0) == 1 for d in one.pipe(words_only(one, d) for d in texts))


def test_labels_apart_parts(trained):
    """A parser scoring labels apart has a parts' layer that learned
    (it saves and loads: test_serialization_round_trip); each action adds
    the scores of its move and of its label's parts."""
    import numpy as np

    nlp = trained[LISTENING]
    parser = nlp.get_pipe("planar_parser")
    names, matrix = parser.system.table.factors()
    parts = parser.model.get_ref("parts")
    assert parts.get_param("W").shape == (len(names), parser.model.get_ref("upper").get_dim("nI"))
    assert np.abs(parts.get_param("W")).sum() > 0  # it learned
    for action, row in zip(parser.system.table.names(), matrix):
        got = {names[k] for k in np.flatnonzero(row)}
        move, _, label = action.partition("-ARC-") if "-ARC-" in action else (action, "", "")
        if label:
            plain = label.split(LIFT_MARK)[0].rstrip(PATH_MARK)
            assert got == {move + "-ARC",
                           f"label {plain}"} | ({f"mark {label[len(plain):]}"} if label != plain else set())
        else:
            assert got == {move}
    assert any(n.startswith("mark") for n in names)  # the treebank has lifted arcs


def test_morphology_is_read_one_feature_at_a_time():
    """WithMorphology.v1's vector of a word is the sum of its UPOS's, its
    XPOS's and each FEATS pair's embeddings: two words that share UPOS, XPOS
    and all pairs but one differ by the difference of that pair's rows; a
    word with nothing predicted still has a vector; gradients reach the
    rows of the keys that were read, and Docs without words pass."""
    import numpy as np
    from spacy.util import registry

    from spacy_planar.model.with_tags import build_with_morphology

    vocab = spacy.blank("xx").vocab
    doc = Doc(vocab, words=["a", "b", "c", "d", "e"], pos=["NOUN", "NOUN", "NOUN", "NOUN", "X"],
              tags=["N", "N", "N", "N", "X"],
              morphs=["Case=Nom|Number=Sing", "Case=Acc|Number=Sing", "Case=Nom|Number=Plur",
                      "Case=Acc|Number=Plur", ""])
    tok2vec = registry.architectures.get("spacy.HashEmbedCNN.v2")(
        width=8, depth=1, embed_size=100, window_size=1, maxout_pieces=3, subword_features=True,
        pretrained_vectors=None)
    model = build_with_morphology(tok2vec, width=4, rows=500)
    model.initialize([doc])
    out, backprop = model([doc, Doc(vocab, words=[])], is_train=True)
    assert [y.shape for y in out] == [(5, 12), (0, 12)]
    m = out[0][:, 8:]
    np.testing.assert_allclose(m[0] - m[1], m[2] - m[3], atol=1e-6)  # Case=Nom - Case=Acc, either Number
    np.testing.assert_allclose(m[0] - m[2], m[1] - m[3], atol=1e-6)  # Sing - Plur, either Case
    assert not np.allclose(m[0], m[1]) and np.abs(m[4]).sum() > 0
    backprop([np.ones_like(y) for y in out])
    embed = next(n for n in model.walk() if n.name == "hashembed" and n.get_dim("nO") == 4)
    touched = np.abs(embed.get_grad("E")).sum(axis=1) > 0
    assert 0 < touched.sum() <= 4 * 8  # 8 keys (2 UPOS, 2 XPOS, 4 pairs), 4 rows each


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("n", [0, 1, 300])
def test_docs_of_any_length(trained, system, n):
    nlp = trained[system]
    words = [random.Random(n).choice(["ik", "is", "jah", "qaþ", "du", "imma", "."]) for _ in range(n)]
    doc = nlp(Doc(nlp.vocab, words=words))
    assert len(doc) == n
    if n:
        heads, _ = tree_of(doc)
        assert tree_error(heads) is None
        assert len(list(doc.sents)) == sum(1 for h in heads if h == 0)


@pytest.mark.parametrize("system", ["two_planar", "swap"])
def test_sentence_boundaries_are_respected(trained, sentences, system):
    nlp = trained[system]
    _, held_out = sentences
    words, starts = [], []
    for d in held_out[:20]:
        starts.extend([True] + [False] * (len(d) - 1))
        words.extend(t.text for t in d)
    doc = Doc(nlp.vocab, words=words, sent_starts=starts)
    bounds = [i for i, s in enumerate(starts) if s] + [len(words)]
    doc = nlp(doc)
    for a, b in zip(bounds, bounds[1:]):
        for t in doc[a:b]:
            assert a <= t.head.i < b


@pytest.mark.parametrize("system", ["arc_eager", "swap", "top_down", "planar", "two_planar"])
def test_single_root(sentences, system):
    """One root per sentence, labelled root, built by the moves: no system
    needs the guard (under SPACY_PLANAR_DEBUG, which the tests set, it would
    raise W090), where the same model without the rule leaves forests."""
    train_docs, held_out = sentences
    nlp = train_pipeline(system, train_docs[:50], epochs=3, single_root=True, extra_root_label="EXTRA")
    for doc in nlp.pipe(words_only(nlp, d) for d in held_out[:40]):
        heads, labels = tree_of(doc)
        assert sum(1 for h in heads if h == 0) == 1
        assert labels[heads.index(0)] == "root"
        assert tree_error(heads) is None
        assert "EXTRA" not in labels
    parser = nlp.get_pipe("planar_parser")
    assert sum(parser.repaired.values()) == 0
    if system in ("planar", "two_planar"):  # their moves alone build forests
        parser.settings.single_root = False
        forest = sum(sum(1 for h in tree_of(doc)[0] if h == 0) - 1
                     for doc in nlp.pipe(words_only(nlp, d) for d in held_out[:40]))
        assert forest > 0


def test_misaligned_examples_are_skipped_not_fatal(sentences):
    train_docs, _ = sentences
    nlp = spacy.blank("xx")
    parser = nlp.add_pipe("planar_parser")
    good = [Example(words_only(nlp, d), d) for d in train_docs[:30]]
    d = train_docs[40]
    glued = Doc(nlp.vocab, words=[d[0].text + d[1].text] + [t.text for t in d[2:]])
    bad = Example(glued, d)
    sgd = nlp.initialize(lambda: good)
    with pytest.warns(UserWarning, match=r"\[W099\] planar_parser: 1 training examples of this update were left "
                                         r"out: 1 tokenisation differs from the gold one"):
        nlp.update(good[:5] + [bad], sgd=sgd)
    assert parser.skipped == {"tokenisation differs from the gold one": 1}


def test_labels_for_spacy_init_labels(trained):
    parser = trained["two_planar"].get_pipe("planar_parser")
    assert "root" in parser.label_data and "nsubj" in parser.label_data


@pytest.mark.parametrize("system", ["arc_eager", "two_planar", LISTENING])
def test_cpu_step_scores_match_the_thinc_ops_path(trained, sentences, system):
    """The C hidden layer used when parsing on CPU gives the scores of the
    Thinc-ops forward (the path a GPU takes), state by state."""
    import numpy as np

    from spacy_planar.parser.transition.parser_model import states_forward
    nlp = trained[system]
    parser = nlp.get_pipe("planar_parser")
    _, held_out = sentences
    docs = [words_only(nlp, d) for d in held_out[:30]]
    scorer = parser.model.predict(docs)  # the registered forward: a StateScorer
    n_tokens = sum(len(d) for d in docs)
    rng = np.random.default_rng(0)
    ids = rng.integers(-1, n_tokens, size=(200, scorer.table.shape[1]))
    labs = rng.integers(-1, len(parser.system.labels), size=(200, scorer.E.shape[0]))
    want, _ = states_forward(parser.model, scorer.table, ids, labs, is_train=False)
    np.testing.assert_allclose(scorer(ids, labs), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("arch,added", [("spacy-planar.WithTags.v1", 3 * 16), ("spacy-planar.WithMorphology.v1", 16)])
def test_parser_reads_predicted_tags(sentences, arch, added):
    """With spacy-planar.WithTags.v1 (or WithMorphology.v1) around its
    listener, the parser's input is the tok2vec's vectors plus embeddings of
    the tags that earlier components set (taggers annotating in training
    too): its feature table changes when a word's predicted tag does, and it
    parses valid trees."""
    import numpy as np

    train_docs, held_out = sentences
    nlp = spacy.blank("xx")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("morphologizer")
    nlp.add_pipe("tagger")
    tags = {"@architectures": arch, "width": 16, "tok2vec": LISTENER["tok2vec"]}
    nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS["two_planar"],
                                          "model": dict(LISTENER, tok2vec=tags)})
    examples = [Example(words_only(nlp, d), d) for d in train_docs[:40]]
    sgd = nlp.initialize(lambda: examples)
    for _ in range(2):
        for i in range(0, len(examples), 16):
            nlp.update(examples[i:i + 16], sgd=sgd, annotates=["morphologizer", "tagger"])
    parser = nlp.get_pipe("planar_parser")
    assert parser.model.get_ref("lower").get_dim("nI") == 96 + added
    doc = nlp(words_only(nlp, held_out[0]))
    assert doc.has_annotation("POS") and tree_error(tree_of(doc)[0]) is None
    other = nlp.get_pipe("tagger")(nlp.get_pipe("morphologizer")(nlp.get_pipe("tok2vec")(words_only(nlp, held_out[0]))))
    before = parser.model.predict([other]).table.copy()
    other[0].pos_ = "NOUN" if other[0].pos_ != "NOUN" else "VERB"
    after = parser.model.predict([other]).table
    assert not np.allclose(before[0], after[0]) and np.allclose(before[1:], after[1:])


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_beam_width_at_load_time(trained, sentences, system, tmp_path):
    """``beam_width`` set when loading: width 1 is the greedy parse; a beam of
    4 changes some parses, each a valid tree, and costs no more than noise in
    accuracy (these models are small; what a beam gains is in
    docs/results.md)."""
    nlp = trained[system]
    _, held_out = sentences
    nlp.to_disk(tmp_path / "pipe")
    texts = [words_only(nlp, d) for d in held_out]
    greedy = [tree_of(d) for d in nlp.pipe(texts)]
    one = spacy.load(tmp_path / "pipe", config={"components": {"planar_parser": {"beam_width": 1}}})
    assert [tree_of(d) for d in one.pipe(words_only(one, d) for d in texts)] == greedy
    four = spacy.load(tmp_path / "pipe", config={"components": {"planar_parser": {"beam_width": 4}}})
    assert four.get_pipe("planar_parser").settings.beam_width == 4
    beam = [tree_of(d) for d in four.pipe(words_only(four, d) for d in texts)]
    assert all(tree_error(h) is None for h, _ in beam)
    assert beam != greedy  # the beam changes some parses
    # where they differ, the beam's tree is mostly the one the model scores higher (the sum of the
    # log-probabilities of each tree's static derivation: what `search-errors` compares; for swap
    # that derivation need not be the path the beam took, whose SWAPs may differ, so its score
    # only bounds the beam's from below). The models differ from machine to machine (BLAS sums in
    # another order), and so does this share: on Gothic, arc_eager 0.80 here, 0.59 on the CI machine.
    # On the test treebank's small models: arc_eager 0.65, planar 0.57, swap 0.51, two_planar 0.60.
    # So the test asks what holds on every machine: more than 0.4 (where a beam that kept the worse
    # tree scores about 0).
    from spacy_planar_lab.search import derivation_scores
    parser = four.get_pipe("planar_parser")
    differ = [i for i, (b, g) in enumerate(zip(beam, greedy)) if b != g]
    docs = [words_only(four, held_out[i]) for i in differ]
    beam_scores = derivation_scores(parser, docs, [beam[i] for i in differ])
    greedy_scores = derivation_scores(parser, docs, [greedy[i] for i in differ])
    # (a tree whose static derivation needs a lift the parser never saw has none: -inf, left out)
    both = np.isfinite(beam_scores) & np.isfinite(greedy_scores)
    assert both.mean() > 0.6, (system, both.mean())  # 0.78-1.0 measured (top_down the lowest)
    higher = beam_scores[both] >= greedy_scores[both] - 1e-6
    assert higher.mean() > 0.4, (system, higher.mean())
    # (not the mean difference: a tree's static derivation need not be the beam's path, and its score only
    # bounds the beam tree's from below; on these small models the mean went either way, -1.3 to +4 nats)


def test_beam_options_are_checked():
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match="E062"):
        nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS["swap"], "beam_width": 0})


def test_tree_transforms_stay_inside(trained, sentences, tmp_path):
    """The parser learns the transformed trees (its actions carry the marks)
    but its labels, its output and a reloaded copy's output are UD."""
    from spacy_planar.trees.transforms import clean_label

    nlp = trained[LISTENING]
    parser = nlp.get_pipe("planar_parser")
    assert any(l.endswith("+") for l in parser.cfg["labels"])  # shared dependents, marked
    assert all(clean_label(l) == l for l in parser.labels)
    _, held_out = sentences
    parsed = list(nlp.pipe(words_only(nlp, d) for d in held_out))
    assert {t.dep_ for d in parsed for t in d} <= set(parser.labels) | {parser.cfg["extra_root_label"]}
    nlp.to_disk(tmp_path / "pipe")
    again = spacy.load(tmp_path / "pipe")
    assert again.get_pipe("planar_parser").settings.tree_transforms == ["coordination-ps+"]
    assert [tree_of(d) for d in again.pipe(words_only(again, d) for d in held_out)] == [tree_of(d) for d in parsed]
    with pytest.raises(ValueError, match="E051"):
        spacy.blank("xx").add_pipe("planar_parser", config={"tree_transforms": ["coordination-xx"]})


def test_beam_update_is_checked():
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match="E065"):
        nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS["swap"], "beam_update": "max"})


def test_top_down_cpu_scores_match_the_thinc_ops_path(trained, sentences):
    """Top-down's scores on CPU (the C hidden layer, then PRED(k) from the arc
    scorer in ``_hidden.pred_scores``) are those of the Thinc-ops forward, for random states and heads,
    siblings and candidate spans (-1: the artificial root, no sibling)."""
    import numpy as np

    from spacy_planar.parser.transition.parser_model import states_forward
    parser = trained["top_down"].get_pipe("planar_parser")
    _, held_out = sentences
    docs = [words_only(trained["top_down"], d) for d in held_out[:30]]
    scorer = parser.model.predict(docs)
    n_tokens = sum(len(d) for d in docs)
    rng = np.random.default_rng(0)
    ids = rng.integers(-1, n_tokens, size=(200, scorer.table.shape[1]))
    labs = rng.integers(-1, len(parser.system.labels), size=(200, scorer.E.shape[0]))
    first = rng.integers(0, n_tokens - 20, size=200)
    front = first + rng.integers(0, 19, size=200)  # i, the first word of the prediction range
    arcs = np.stack([rng.integers(-1, n_tokens, size=200), rng.integers(-1, n_tokens, size=200), first,
                     first + 18, front, front, np.minimum(front + 5, first + 18)], axis=1)
    want, _ = states_forward(parser.model, scorer.table, ids, labs, is_train=False,
                             arc_tables=scorer.arc_tables, arcs=arcs)
    got = scorer(ids, labs, arcs)
    assert got.shape == (200, len(parser.system.table) + 20)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_top_down_needs_the_arc_scorer(sentences):
    """Top-down's PRED(k) scores come from the arc scorer: without one (or
    with one on another system) initialize says so; it has no dynamic
    oracle, so exploration is refused."""
    train_docs, _ = sentences
    nlp = spacy.blank("xx")
    nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS["top_down"], "exploration": 0.0,
                                          "exploration_nonprojective": None})
    examples = [Example(words_only(nlp, d), d) for d in train_docs[:5]]
    with pytest.raises(ValueError, match="E063"):
        nlp.initialize(lambda: examples)
    nlp = spacy.blank("xx")
    nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS["arc_eager"],
                                          "model": dict(DEFAULT_MODEL["model"], arc_width=16)})
    with pytest.raises(ValueError, match="E063"):
        nlp.initialize(lambda: examples)
    with pytest.raises(ValueError, match="E064"):
        spacy.blank("xx").add_pipe("planar_parser", config={"transition_system": SYSTEMS["top_down"],
                                                             "exploration": 0.5})


def test_top_down_first_lookahead(trained, sentences, tmp_path):
    """FIRST (section 5.4) is learned from the training trees' UPOS, kept on
    disk, and read from the Docs' POS where an earlier component set it;
    every parse is a valid tree with or without it."""
    nlp = trained["top_down"]
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    parser = loaded.get_pipe("planar_parser")
    assert parser.cfg["first"] and parser.system.first is not None
    assert set(parser.cfg["first"]["VERB"]) >= {"VERB"}
    _, held_out = sentences
    tagged = []
    for gold in held_out:
        doc = words_only(loaded, gold)
        for t, g in zip(doc, gold):
            t.pos_ = g.pos_
        tagged.append(doc)
    with_first = [tree_of(d) for d in parser.pipe(tagged)]
    without = [tree_of(d) for d in loaded.pipe(words_only(loaded, d) for d in held_out)]
    assert all(tree_error(h) is None for h, _ in with_first + without)
    assert with_first != without  # the lookahead changes some parses
    # the predictions the parser made with the tags are ones FIRST allows: along the static
    # derivation of each tree it built, its PRED(k) lie in the narrowed range (all but a few: where
    # the parser completed a tree at another step than the oracle would, the queue front i, whose
    # tag FIRST reads, differs)
    from spacy_planar.parser.transition.catalog import make_oracle
    from spacy_planar.parser.systems.state import PRED
    system = parser.system
    from spacy_planar.trees.algorithms import is_projective
    # as parsed, nothing decoded: projective, and no label that only a lifted label of the parser's carried
    kept = [i for i, (h, ls) in enumerate(with_first) if is_projective(h) and set(ls) <= set(system.label_ids)]
    assert len(kept) > len(with_first) // 2
    prepared = [system.label_tree(system.prepare_tree(*with_first[i])) for i in kept]
    st = system.init_states([len(h) for h, _ in prepared], tags=[[t.pos_ for t in tagged[i]] for i in kept])
    oracle = make_oracle(system, st, prepared)
    inside = []
    while not system.is_final(st).all():
        moves, labels = oracle.static(st)
        live = ~system.is_final(st) & (moves == PRED)
        inside.extend(system.pred_range(st)[live, labels[live]].tolist())
        system.apply(st, np.where(system.is_final(st), -1, system.action_of(moves, labels)))
    assert len(inside) > 1000 and np.mean(inside) > 0.99, (len(inside), np.mean(inside))


@pytest.mark.parametrize("system", ["two_planar", "swap"])
def test_whitespace_is_attached_not_parsed(trained, system):
    """Whitespace tokens are not words of the tree: each hangs on the word
    before it (the word after it at a sentence's start) with the extra root
    label, heads nothing, and is never the root; a text of whitespace alone
    is one root."""
    nlp = trained[system]
    doc = nlp("  jah qaþ  du im .\nunte swa\n")
    space = [t.i for t in doc if t.is_space]
    assert len(space) >= 3 and doc[0].is_space
    for i in space:
        t = doc[i]
        assert t.dep_ == "dep" and not list(t.children) and t.head.i != i
        before = [w.i for w in doc[:i] if not w.is_space]
        assert t.head.i == (before[-1] if before else next(w.i for w in doc[i:] if not w.is_space))
    roots = [t for t in doc if t.head.i == t.i]
    assert len(roots) == 1 and not roots[0].is_space
    alone = nlp("\n\n")
    assert [t.head.i for t in alone] == [0]


@pytest.mark.parametrize("system", ["arc_eager", "swap"])
def test_sentences_with_whitespace_get_their_own_trees(trained, sentences, system):
    """A Doc of several sentences, the longest first, with whitespace tokens:
    the parser batches sentences by length, and each still gets the tree it
    gets when parsed alone over the same Doc (one root, heads inside it)."""
    from spacy_planar.parser.transition.parsing import parse_docs

    nlp = trained[system]
    parser = nlp.get_pipe("planar_parser")
    _, held_out = sentences
    by_length = {len(d): d for d in held_out if 4 <= len(d) <= 14}
    picked = [by_length[n] for n in sorted(by_length, reverse=True)[:3]]  # longest first, lengths apart
    words, spaces, starts = [], [], []
    for d in picked:  # a double space after each sentence's second word: a whitespace token
        for i, t in enumerate(d):
            words.append(t.text)
            spaces.append(i != 1)
            starts.append(i == 0)
            if i == 1:
                words.append(" ")
                spaces.append(False)
                starts.append(False)
    doc = Doc(nlp.vocab, words=words, spaces=spaces, sent_starts=starts)
    lengths = [len(sent) for sent in doc.sents]
    assert sum(t.is_space for t in doc) == 3 and len(lengths) == 3 and lengths == sorted(set(lengths), reverse=True)
    together = sorted(parser.predict([doc])[0], key=lambda unit: unit[0])
    scores = parser.model.predict([doc])
    for k, sent in enumerate(doc.sents):
        alone = parse_docs(parser.system, scores, parser.model.ops, [doc], [(0, sent.start, sent.end)],
                           parser.settings)[0]
        assert together[k][:2] == alone[0][:2]
    parser.set_annotations([doc], [together])
    for sent in doc.sents:
        assert sum(t.head.i == t.i for t in sent) == 1
        assert all(sent.start <= t.head.i < sent.end for t in sent)


def test_an_unseen_gold_label_is_one_clear_error(sentences):
    """A gold label the parser was not initialized with is never trained as
    another (root): the update stops with E118 naming it."""
    from spacy_planar.errors import UserError

    train_docs, _ = sentences
    nlp = spacy.blank("xx")
    nlp.add_pipe("planar_parser")
    good = [Example(words_only(nlp, d), d) for d in train_docs[:30]]
    sgd = nlp.initialize(lambda: good)
    d = train_docs[40]
    relabelled = Doc(nlp.vocab, words=[t.text for t in d], heads=[t.head.i for t in d],
                     deps=["xcomp:new" if t.head.i != t.i else t.dep_ for t in d])
    with pytest.raises(UserError, match=r"E118.*'xcomp:new'"):
        nlp.update([Example(words_only(nlp, d), relabelled)], sgd=sgd)


def test_a_gold_head_outside_the_predicted_sentence_is_reported(sentences, monkeypatch):
    """Two gold sentences predicted as one pair of other sentences: the
    words whose gold head falls in the other predicted sentence are trained
    as roots, counted, and reported (W095: raised under SPACY_PLANAR_DEBUG,
    a warning otherwise)."""
    from spacy_planar.errors import UnexpectedError, UnexpectedWarning

    train_docs, _ = sentences
    nlp = spacy.blank("xx")
    parser = nlp.add_pipe("planar_parser")
    good = [Example(words_only(nlp, d), d) for d in train_docs[:30]]
    sgd = nlp.initialize(lambda: good)
    d = next(doc for doc in train_docs[:30] if len(doc) >= 8 and any((t.i < 4) != (t.head.i < 4) for t in doc))
    predicted = Doc(nlp.vocab, words=[t.text for t in d],
                    sent_starts=[True] + [False] * 3 + [True] + [False] * (len(d) - 5))
    crossing = sum(1 for t in d if (t.i < 4) != (t.head.i < 4))
    assert crossing > 0
    with pytest.raises(UnexpectedError, match="W095"):
        nlp.update([Example(predicted, d)], sgd=sgd)
    monkeypatch.setenv("SPACY_PLANAR_DEBUG", "0")
    before = parser.trainer.outside
    with pytest.warns(UnexpectedWarning, match=rf"W095\] planar_parser: {crossing} gold words"):
        nlp.update([Example(predicted, d)], sgd=sgd)
    assert parser.trainer.outside - before == crossing


def test_a_tree_the_parser_cannot_derive_scores_minus_infinity(trained, sentences):
    """search-errors' derivation score: a tree needing a label the parser
    lacks has no derivation in its actions (-inf, not E118); the others a
    finite log-probability, at most 0."""
    from spacy_planar_lab.search import derivation_scores

    _, held_out = sentences
    nlp = trained["arc_eager"]
    parser = nlp.get_pipe("planar_parser")
    from spacy_planar.trees.algorithms import is_projective

    # projective trees whose labels the parser has (no lift it may lack), one of them then relabelled
    known = [d for d in held_out if {t.dep_ for t in d} <= set(parser.labels) | {"root"}
             and is_projective(tree_of(d)[0])][:4]
    assert len(known) == 4
    docs = [words_only(nlp, d) for d in known]
    trees = [tree_of(d) for d in known]
    trees[1] = (trees[1][0], ["never_seen"] * len(trees[1][1]))
    scores = derivation_scores(parser, docs, trees)
    assert scores[1] == -np.inf and np.isfinite(scores[[0, 2, 3]]).all() and (scores[[0, 2, 3]] <= 0).all()


@pytest.mark.parametrize("system", ["top_down", "arc_eager"])
def test_a_second_gold_root_is_reported_where_the_system_builds_one(sentences, system):
    """A gold tree with two roots: top-down builds one root and trains the
    second as a dependent of the first, which the update reports (W125:
    raised under SPACY_PLANAR_DEBUG, as in the tests); arc-eager derives
    both and says nothing."""
    import warnings

    from spacy_planar.errors import UnexpectedError

    train_docs, _ = sentences
    nlp = spacy.blank("xx")
    model = dict(DEFAULT_MODEL["model"], tok2vec=CNN, arc_width=ARC_WIDTH if system == "top_down" else 0)
    nlp.add_pipe("planar_parser", config={"transition_system": SYSTEMS[system], "model": model, "exploration": 0.0})
    sgd = nlp.initialize(lambda: [Example(words_only(nlp, d), d) for d in train_docs[:30]])
    # the last word made a root: no arc passes over it, so the tree stays projective
    d = next(doc for doc in train_docs[:30] if doc[-1].head.i != doc[-1].i and not list(doc[-1].children))
    leaf = len(d) - 1
    two_roots = Doc(nlp.vocab, words=[t.text for t in d], heads=[t.i if t.i == leaf else t.head.i for t in d],
                    deps=["root" if t.i == leaf else t.dep_ for t in d])
    assert sum(t.head.i == t.i for t in two_roots) == 2
    if system == "top_down":
        with pytest.raises(UnexpectedError, match=r"W125\] planar_parser: 1 gold words .* top_down builds one root"):
            nlp.update([Example(words_only(nlp, d), two_roots)], sgd=sgd)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nlp.update([Example(words_only(nlp, d), two_roots)], sgd=sgd)
