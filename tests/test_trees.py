import re
from pathlib import Path

import numpy as np
import pytest
import reference
from conftest import CZECH_HEADS, DATA, treebank
from hypothesis import given, settings
from hypothesis import strategies as hst
from strategies import trees

from spacy_planar.trees import algorithms as T


def test_czech_example_arc_is_nonprojective():
    assert T.nonprojective_arcs(CZECH_HEADS).tolist() == [True] + [False] * 7
    assert not T.is_projective(CZECH_HEADS)
    assert not T.is_planar(CZECH_HEADS)  # link 1-5 crosses link 3-6 (je -> na)
    assert T.min_planes(CZECH_HEADS) == 2
    assert T.gaps(CZECH_HEADS).max() == 1  # the gap degree
    assert T.is_well_nested(CZECH_HEADS)


@pytest.mark.parametrize("heads,reason", [
    ([0, 3, 2], "cycle"), ([2, 2], "own head"), ([2, 1], "no word"), ([0, 5], "outside"),
])
def test_tree_error(heads, reason):
    word, message = T.tree_error(heads)
    assert reason in message


def test_tree_error_accepts_several_roots():
    assert T.tree_error([0, 1, 0, 3]) is None


def test_ill_nested_example():
    # subtrees of 2 {2, 4} and of 3 {3, 5} interleave: 2 < 3 < 4 < 5
    heads = [0, 1, 1, 2, 3]
    assert not T.is_well_nested(heads)
    assert reference.ill_nested(heads)


def test_three_planes_needed():
    # three mutually crossing links need three planes
    heads = [0, 1, 1, 1, 2, 3, 4]
    assert T.min_planes(heads) == 3
    m, planes = T.plane_assignment(heads)
    assert sorted(set(planes[planes >= 0])) == [0, 1, 2]


@settings(max_examples=300, deadline=None)
@given(trees(max_words=30, max_roots=2))
def test_nonprojective_arcs_match_definition(heads):
    assert T.nonprojective_arcs(heads).tolist() == reference.nonprojective(heads)
    assert T.tree_error(heads) is None


@settings(max_examples=200, deadline=None)
@given(trees(max_words=9))
def test_min_planes_equals_brute_force(heads):
    assert T.min_planes(heads) == reference.min_planes_brute(heads)


@settings(max_examples=200, deadline=None)
@given(trees(max_words=30))
def test_plane_assignment_is_valid(heads):
    m, planes = T.plane_assignment(heads)
    _, pairs = reference.crossing_pairs(heads)
    deps = [d for d, h in enumerate(heads, 1) if h != 0]
    for x, y in pairs:
        assert planes[deps[x] - 1] != planes[deps[y] - 1]
    assert (planes[np.array(heads) == 0] == -1).all()
    assert T.is_planar(heads) == (m <= 1)


@settings(max_examples=200, deadline=None)
@given(trees(max_words=12))
def test_nesting_and_gaps_match_definition(heads):
    assert T.is_well_nested(heads) == (not reference.ill_nested(heads))
    degree = int(T.gaps(heads).max()) if len(heads) else 0
    assert degree == reference.gap_degree(heads)
    assert (degree == 0) == T.is_projective(heads)


def structure_table(path, skip_columns: int = 0):
    """A table of treebank structure (``| NAME train | counts ... |``) as counts, each row's first
    ``skip_columns`` left out."""
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| (\w+) train \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [int(c.split("(")[0].replace(",", "")) for c in m.group(2).split("|")][skip_columns:]
    return rows


@pytest.mark.data
@pytest.mark.parametrize("name", ["en_ewt", "pt_bosque", "got_proiel"])
def test_stats_are_what_results_md_says(name):
    """`lab stats` on the treebank gives docs/results.md's table (what we publish) and the count of
    ../shared/data/README.md (an independent reference count), where that is there."""
    from spacy_planar_lab.analyse import stats_of

    path = treebank(name)  # skips (fails on CI) without the shared data
    got = stats_of(path)
    keys = ["nonprojective_arcs", "nonprojective_trees", "nonplanar_trees", "non_2planar_trees",
            "non_3planar_trees", "ill_nested_trees"]
    ours = structure_table(Path(__file__).resolve().parents[1] / "docs" / "results.md")[name]
    assert ours == [got["trees"], got["words"], *[got[k] for k in keys]]
    reference = DATA.parent / "README.md"
    if reference.exists():
        assert structure_table(reference)[name] == [got[k] for k in keys]


@given(hst.lists(hst.lists(hst.integers(0, 8), min_size=0, max_size=8), min_size=1, max_size=6))
def test_are_trees_agrees_with_tree_error(sentences):
    """The batched check gives tree_error's verdict for every sentence of a
    concatenation, well-formed or not (random head lists are mostly not)."""
    flat = [h for s in sentences for h in s]
    got = T.are_trees(flat, [len(s) for s in sentences]).tolist()
    assert got == [T.tree_error(s) is None for s in sentences]


@given(hst.lists(trees(max_roots=2), min_size=1, max_size=5), hst.data())
def test_are_trees_finds_the_one_broken_tree(sentences, data):
    """Well-formed trees pass; one head redirected into its own subtree (a
    cycle) fails that sentence only."""
    heads = [list(h) for h in sentences]
    lengths = [len(h) for h in heads]
    assert T.are_trees([h for s in heads for h in s], lengths).all()
    k = data.draw(hst.integers(0, len(heads) - 1))
    h = heads[k]
    dom = T.dominance(h)
    w = data.draw(hst.integers(1, len(h)))
    below = [d for d in range(1, len(h) + 1) if dom[w, d]]
    h[w - 1] = data.draw(hst.sampled_from(below))
    got = T.are_trees([x for s in heads for x in s], lengths)
    assert got.tolist() == [i != k for i in range(len(heads))]
