"""Both parsers in one pipeline (a ``biaffine_parser`` that reparses with the ``planar_parser``
before it, on one shared encoder), and pipelines trained apart shipped as one
(``planar_ensemble``): what each decides, against a plain reference; that each parses as its
command-line counterpart; saving, loading, ``nlp.pipe``; the one-line errors."""
import random

import numpy as np
import pytest
import spacy
from conftest import fixture_path, sample, shortest_docs
from spacy.tokens import Doc
from spacy.training import Example
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.errors import UserError
from spacy_planar.io.doc_trees import span_tree
from spacy_planar.trees.algorithms import tree_error
from spacy_planar.trees.mst import best_tree

LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "*"}
JOINT = {"decoder": "mst", "pseudo_projective": None,
         "model": {"@architectures": "spacy-planar.BiaffineModel.v2", "arc_width": 64, "label_width": 32,
                   "positional_width": 16, "tok2vec": LISTENER}}


def _joint_nlp(n: int = 60, epochs: int = 12):
    """A joint pipeline (the shared tok2vec, arc-eager keeping its moves' probabilities, the biaffine
    reparsing with it) trained on the test treebank's ``n`` shortest sentences (seeded)."""
    from thinc.api import fix_random_seed

    random.seed(0)
    fix_random_seed(0)
    nlp = spacy.blank("xx")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("planar_parser", config={"head_probs": True, "model": {"tok2vec": LISTENER}})
    nlp.add_pipe("biaffine_parser", config=JOINT)
    nlp.add_pipe("parse_decider")
    docs = shortest_docs(nlp.vocab, n)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    sgd = nlp.initialize(lambda: examples)
    for _ in range(epochs):
        random.shuffle(examples)
        for i in range(0, len(examples), 10):
            nlp.update(examples[i:i + 10], sgd=sgd)
    return nlp, docs


@pytest.fixture(scope="module")
def joint():
    return _joint_nlp()


def _words(nlp, doc):
    return Doc(nlp.vocab, words=[t.text for t in doc])


def reference_decision(nlp, doc):
    """The tree decided from both parsers, computed plainly: arc-eager's tree alone (the biaffine
    not run) with each word's move probability, the biaffine's arc probabilities from its own
    model, their mean decoded by the maximum spanning tree with one root."""
    from spacy_planar.io.conllu import MOVE_LOGP_KEY
    from spacy_planar.parser.graph import scoring as graph

    with nlp.select_pipes(disable=["biaffine_parser", "parse_decider"]):
        alone = nlp(_words(nlp, doc))
    heads, _ = span_tree(alone)
    p_move = np.exp(np.asarray(alone.user_data[MOVE_LOGP_KEY]))
    n = len(heads)
    theirs = np.zeros((n, n + 1))
    theirs[np.arange(n), heads] = p_move
    biaffine = nlp.get_pipe("biaffine_parser")
    scorer = biaffine.model.predict([alone])
    mine = np.exp(graph.arc_log_probs(scorer, [0], [n])[0, :n, :n + 1])
    return best_tree(np.log(np.maximum((mine + theirs) / 2, 1e-12))), alone


def test_the_joint_pipeline_decides_each_tree_from_both_parsers(joint):
    """Token.head holds the tree decided from both (the reference above, word for word), the two
    parsers' own trees are in Doc._.trees (arc-eager's the tree it gives alone), every tree has one
    root, and the pipeline has learnt its training sentences."""
    nlp, docs = joint
    right = total = differ = 0
    for gold in docs:
        doc = nlp(_words(nlp, gold))
        heads, labels = span_tree(doc)
        expected, alone = reference_decision(nlp, gold)
        assert heads == expected
        trees = doc._.trees
        assert set(trees) == {"planar_parser", "biaffine_parser"}
        assert (trees["planar_parser"][0]["heads"], trees["planar_parser"][0]["labels"]) == span_tree(alone)
        for tree in [(heads, labels), *((t[0]["heads"], t[0]["labels"]) for t in trees.values())]:
            assert tree_error(tree[0]) is None and tree[0].count(0) == 1
        differ += trees["planar_parser"][0]["heads"] != trees["biaffine_parser"][0]["heads"]
        assert all(0 < t._.head_prob <= 1 for t in doc)
        g_heads, g_labels = span_tree(gold)
        right += sum(h == gh and lab == gl for h, gh, lab, gl in zip(heads, g_heads, labels, g_labels))
        total += len(heads)
    assert right / total > 0.9 and differ > 0  # the parsers do not always agree: the decision is tested


def test_the_joint_pipeline_saves_loads_and_pipes_as_it_parses(joint, tmp_path):
    """Saved and loaded, and through nlp.pipe (batches, two processes), the same trees as nlp()."""
    nlp, docs = joint
    texts = [" ".join(t.text for t in d) for d in docs[:12]]
    alone = [span_tree(nlp(t)) for t in texts]
    nlp.to_disk(tmp_path / "joint")
    loaded = spacy.load(tmp_path / "joint")
    assert [span_tree(d) for d in loaded.pipe(texts, batch_size=5)] == alone
    assert [span_tree(d) for d in loaded.pipe(texts, batch_size=5, n_process=2)] == alone
    assert loaded(texts[0])._.trees == nlp(texts[0])._.trees


def test_without_arc_eagers_tree_the_biaffine_decides_alone(joint):
    """With the transition parser disabled, the decider gives the biaffine's own tree (the only
    vote), and with the decider disabled too the biaffine's tree is on Token.head as it wrote it."""
    nlp, docs = joint
    for disabled in (["planar_parser"], ["planar_parser", "parse_decider"]):
        with nlp.select_pipes(disable=disabled):
            doc = nlp(_words(nlp, docs[0]))
        own = doc._.trees["biaffine_parser"][0]
        assert set(doc._.trees) == {"biaffine_parser"} and tree_error(own["heads"]) is None
        assert span_tree(doc) == (own["heads"], own["labels"])


def test_a_joint_pipeline_is_no_member_of_an_ensemble(joint, two_pipelines, tmp_path):
    """``parse --ensemble`` (and ``package --ensemble``) with a pipeline of two parsers: one line."""
    nlp, _ = joint
    nlp.to_disk(tmp_path / "joint")
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 3)
    r = CliRunner().invoke(app, ["parse", str(two_pipelines[0]), str(gold), str(tmp_path / "out.conllu"),
                                 "--ensemble", str(tmp_path / "joint")])
    assert r.exit_code == 1 and "E136" in r.output and "two parsers" in r.output, r.output
    assert not (tmp_path / "out.conllu").exists()


def test_the_decider_names_earlier_parsers_it_can_read_and_reparse_with_is_gone():
    """Each misconfiguration is one line: a parser not before it (or of another kind), a biaffine
    of encoded trees, a transition parser of several roots, k-best votes without a beam, weights
    that are not one a parser; the old layout's reparse_with names the upgrade."""
    nlp = spacy.blank("xx")
    with pytest.raises(UserError, match=r"\[E167\].*spacy-planar upgrade"):
        nlp.add_pipe("biaffine_parser", config={"reparse_with": "planar_parser", "pseudo_projective": None})
    with pytest.raises(UserError, match=r"\[E168\].*no component 'planar_parser'"):
        nlp.add_pipe("parse_decider")
    nlp.add_pipe("planar_parser")
    nlp.add_pipe("biaffine_parser")
    with pytest.raises(UserError, match=r"\[E168\].*pseudo_projective = null"):
        nlp.add_pipe("parse_decider")
    nlp.remove_pipe("biaffine_parser")
    nlp.add_pipe("biaffine_parser", config={"pseudo_projective": None})
    with pytest.raises(UserError, match=r"\[E168\].*weights"):
        nlp.add_pipe("parse_decider", config={"weights": [1.0]})
    with pytest.raises(UserError, match=r"\[E168\].*beam_width > 1 and n_best > 1"):
        nlp.add_pipe("parse_decider", config={"votes": "kbest"})
    with pytest.raises(UserError, match=r"\[E134\]"):
        nlp.add_pipe("parse_decider", config={"votes": "arcs"})
    other = spacy.blank("xx")
    other.add_pipe("planar_parser", config={"single_root": False})
    other.add_pipe("biaffine_parser", config={"pseudo_projective": None})
    with pytest.raises(UserError, match=r"\[E168\].*single_root"):
        other.add_pipe("parse_decider")
    nlp.add_pipe("parse_decider")
    assert nlp.get_pipe("planar_parser").handover.listener == "parse_decider"


def test_greedy_moves_probabilities_are_a_beam_of_ones(joint):
    """``head_probs`` parses greedily (the same trees as without it) and records each word's move
    log-probability as a beam of 1 records it (``MoveRecorder`` against ``beam_parse``)."""
    from spacy_planar.parser.transition.driver import beam_parse, greedy_parse

    nlp, docs = joint
    parser = nlp.get_pipe("planar_parser")
    batch = [nlp.get_pipe("tok2vec")(_words(nlp, d)) for d in docs]
    scorer = parser.model.predict(batch)
    score = lambda *x: parser.model.ops.to_numpy(scorer(*x))  # noqa: E731
    lengths = [len(d) for d in batch]
    offsets = np.cumsum([0] + lengths[:-1]).astype(np.int32)
    moves, finals = [], []
    greedy = greedy_parse(parser.system, score, lengths, offsets, finish=True, move_logp=moves)
    beam = beam_parse(parser.system, score, lengths, offsets, 1, density=0.0, merge=False, finish=True,
                      finals=finals)
    assert greedy == beam == greedy_parse(parser.system, score, lengths, offsets, finish=True)
    for mine, theirs in zip(moves, finals):
        assert mine == pytest.approx(theirs[0][2], abs=1e-5) and all(m <= 0 for m in mine)


def _listening_parser(path, n: int, seed: int, factory: str = "planar_parser", config: dict = None,
                      tagger: bool = False):
    """A pipeline of a shared tok2vec and a parser listening to it (as the shipped configs; with
    ``tagger``, spaCy's tagger too), trained 4 epochs on the test treebank's ``n`` shortest
    sentences, saved at ``path``."""
    from thinc.api import fix_random_seed

    fix_random_seed(seed)
    nlp = spacy.blank("la")
    nlp.add_pipe("tok2vec")
    if tagger:
        nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": LISTENER}})
    nlp.add_pipe(factory, config={"model": {"tok2vec": LISTENER}, **(config or {})})
    docs = shortest_docs(nlp.vocab, n)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    sgd = nlp.initialize(lambda: examples)
    for _ in range(4):
        nlp.update(examples, sgd=sgd)
    nlp.to_disk(path)
    return path


@pytest.fixture(scope="module")
def two_pipelines(tmp_path_factory):
    """Two small pipelines of the test treebank, an arc-eager and a biaffine one."""
    folder = tmp_path_factory.mktemp("members")
    return (_listening_parser(folder / "a", 40, 0),
            _listening_parser(folder / "b", 40, 1, "biaffine_parser", {"model": JOINT["model"]}))


def test_pipelines_trained_apart_load_as_one_and_parse_as_parse_ensemble(two_pipelines, tmp_path):
    """``ensemble_pipeline`` (what ``package --ensemble`` packages) writes one pipeline that
    spacy.load reads and that parses a treebank's words exactly as ``parse M1 --ensemble M2``
    (the same CoNLL-U but the first line, which names the pipeline)."""
    from spacy_planar.io.pipelines import parsers_held
    from spacy_planar.parser.ensembles.component import ensemble_pipeline

    a, b = two_pipelines
    one = ensemble_pipeline([str(a), str(b)], tmp_path / "one")
    assert parsers_held(one) == ["ensemble: arc_eager, biaffine"]
    gold = sample(fixture_path("dev"), tmp_path / "gold.conllu", 20)
    runner = CliRunner()
    r = runner.invoke(app, ["parse", str(one), str(gold), str(tmp_path / "packaged.conllu")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["parse", str(a), str(gold), str(tmp_path / "cli.conllu"), "--ensemble", str(b)])
    assert r.exit_code == 0, r.output
    packaged, cli = ((tmp_path / f"{n}.conllu").read_text(encoding="utf-8").split("\n", 1) for n in ("packaged", "cli"))
    assert packaged[1] == cli[1] and packaged[0] != cli[0]
    nlp = spacy.load(one)
    assert nlp.pipe_names[-1] == "planar_ensemble"
    text = "Cum neminem ante nos de vulgaris eloquentie doctrina quicquam inveniamus tractasse."
    assert [span_tree(d) for d in nlp.pipe([text, text], batch_size=1)] == [span_tree(nlp(text))] * 2


def test_an_ensemble_of_pipelines_that_differ_is_one_line(two_pipelines, tmp_path):
    """Members whose tok2vec, taggers or labels differ cannot be one: E136, nothing written."""
    a, _ = two_pipelines
    tagged = _listening_parser(tmp_path / "tagged", 20, 0, tagger=True)
    r = CliRunner().invoke(app, ["package", str(tagged), str(tmp_path / "out"), "--name", "x", "--ensemble", str(a)])
    assert r.exit_code == 1 and "E136" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "out").exists()


def test_the_deciders_settings_given_at_load_are_honoured(joint, tmp_path):
    """The decider's weights, votes and decoder given at load are what it does (nothing of it is
    learned): all the weight on arc-eager gives arc-eager's own tree, all on the biaffine the
    biaffine's; hard votes and Eisner's decoder give trees with one root; a trained setting of a
    parser given otherwise at load is refused (E139)."""
    nlp, docs = joint
    nlp.to_disk(tmp_path / "joint")
    texts = [" ".join(t.text for t in d) for d in docs[:10]]
    for weights, parser in (([1.0, 0.0], "planar_parser"), ([0.0, 1.0], "biaffine_parser")):
        loaded = spacy.load(tmp_path / "joint", config={"components": {"parse_decider": {"weights": weights}}})
        for doc in loaded.pipe(texts):
            own = doc._.trees[parser][0]
            assert span_tree(doc)[0] == own["heads"]
    for settings in ({"votes": "tree"}, {"decoder": "eisner"}):
        loaded = spacy.load(tmp_path / "joint", config={"components": {"parse_decider": settings}})
        assert loaded.get_pipe("parse_decider").cfg[next(iter(settings))] == next(iter(settings.values()))
        for doc in loaded.pipe(texts):
            assert tree_error(span_tree(doc)[0]) is None and span_tree(doc)[0].count(0) == 1
    with pytest.raises(UserError, match=r"\[E139\]"):
        spacy.load(tmp_path / "joint", config={"components": {"planar_parser": {"transition_system": {
            "@transition_systems": "spacy-planar.swap.v1"}}}})
