import pytest
from conftest import CZECH_HEADS, CZECH_LABELS
from hypothesis import assume, given, settings
from strategies import labelled_trees, one_lift_trees, projective_trees

from spacy_planar_lab.experiments import projectivization_check
from spacy_planar.trees.algorithms import is_projective
from spacy_planar.trees.pseudoproj import (
    ENCODINGS,
    deprojectivize,
    is_decorated,
    parse_label,
    projectivize,
    undecorate,
)


def test_czech_example_head_path():
    p = projectivize(CZECH_HEADS, CZECH_LABELS, "head+path")
    assert p.heads[0] == 3  # Z lifted from jedna to je
    assert p.lifts == [1, 0, 0, 0, 0, 0, 0, 0]
    assert p.labels[0] == "AuxP↑Sb"
    assert p.labels[4] == "Sb↓"
    assert is_projective(p.heads)
    assert deprojectivize(p.heads, p.labels, "head+path") == (CZECH_HEADS, CZECH_LABELS)


@pytest.mark.parametrize("encoding,lifted,path", [
    ("baseline", "AuxP", "Sb"), ("head", "AuxP↑Sb", "Sb"), ("path", "AuxP↑", "Sb↓"), ("head+path", "AuxP↑Sb", "Sb↓"),
])
def test_encodings_table_3_1(encoding, lifted, path):
    p = projectivize(CZECH_HEADS, CZECH_LABELS, encoding)
    assert (p.labels[0], p.labels[4]) == (lifted, path)
    heads, labels = deprojectivize(p.heads, p.labels, encoding)
    assert labels == CZECH_LABELS
    assert heads[0] == (3 if encoding == "baseline" else 5)


def test_labels_cannot_clash_with_ud():
    for label in ("obl:arg", "nsubj:pass", "compound:prt"):
        assert not is_decorated(label)
        assert undecorate(label) == label
    assert parse_label("obl:arg↑nsubj:pass↓") == ("obl:arg", True, "nsubj:pass", True)
    assert str(parse_label("obl:arg↑nsubj:pass↓")) == "obl:arg↑nsubj:pass↓"


def test_deprojectivize_never_breaks_a_tree():
    # broken parser output: a lifted label with nothing to find
    heads, labels = deprojectivize([0, 1, 1], ["root", "obj↑nsubj", "det↓"], "head+path")
    assert heads == [0, 1, 1] and labels == ["root", "obj", "det"]


@settings(max_examples=300, deadline=None)
@given(labelled_trees(max_words=30, max_roots=2))
def test_projectivize_gives_projective_tree_same_words(tree):
    heads, labels = tree
    for encoding in ENCODINGS:
        p = projectivize(heads, labels, encoding)
        assert len(p.heads) == len(heads)
        assert is_projective(p.heads)
        assert [undecorate(x) for x in p.labels] == labels
        assert (sum(p.lifts) == 0) == is_projective(heads)


@settings(max_examples=300, deadline=None)
@given(one_lift_trees(max_words=30))
def test_head_path_restores_trees_needing_one_lift(tree):
    heads, labels = tree
    p = projectivize(heads, labels, "head+path")
    assume(sum(p.lifts) == 1)
    for encoding in ("head+path", "path"):
        p = projectivize(heads, labels, encoding)
        assert deprojectivize(p.heads, p.labels, encoding) == (heads, labels)


@settings(max_examples=200, deadline=None)
@given(projective_trees(max_words=30))
def test_projective_trees_are_left_alone(heads):
    assert is_projective(heads)
    labels = ["dep"] * len(heads)
    p = projectivize(heads, labels, "head+path")
    assert (p.heads, p.labels, sum(p.lifts)) == (heads, labels, 0)


@settings(max_examples=200, deadline=None)
@given(labelled_trees(max_words=30), )
def test_deprojectivize_returns_a_tree_for_any_labels(tree):
    from spacy_planar.trees.algorithms import tree_error
    heads, labels = tree
    # decorate arbitrarily, as a parser might
    noisy = [lab + ("↑obj" if i % 3 == 0 else "") + ("↓" if i % 4 == 0 else "") for i, lab in enumerate(labels)]
    for encoding in ENCODINGS:
        h, l = deprojectivize(heads, noisy, encoding)
        assert tree_error(h) is None
        assert l == labels


def test_experiment_1_on_the_test_treebank(train_conllu):
    from reference import nonprojective

    from spacy_planar.io.conllu import read_conllu
    sents = [(s.heads, s.deprels) for s in read_conllu(train_conllu)]
    res = projectivization_check(sents, "head+path")
    assert res["nonprojective_arcs"] == sum(sum(nonprojective(h)) for h, _ in sents) > 100
    assert res["restored_arcs"] / res["nonprojective_arcs"] >= 0.98
    assert projectivization_check(sents, "baseline")["restored_arcs"] == 0
    assert res["labels_after"] > res["labels_before"]
