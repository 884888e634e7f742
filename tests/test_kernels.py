"""The C loops of spacy_planar (systems/_core, systems/_planar, model/_hidden,
oracles/_link_costs) against their per-row twins in
reference.py, on states reached by random valid actions of every system."""
import numpy as np
import pytest
from conftest import fixture_path
import reference

from spacy_planar.parser.transition import _hidden
from spacy_planar.parser.transition.catalog import SYSTEMS, make_system
from spacy_planar.parser.systems import _core


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_state_kernels_match_reference(name):
    rng = np.random.default_rng(7)
    system = make_system(name, ["a", "b", "c"])
    lengths = rng.integers(1, 16, size=24)
    st = system.init_states(lengths)
    offsets = np.cumsum(lengths) - lengths
    steps = 0
    while not system.is_final(st).all():
        assert st.positions().tolist() == reference.positions(st)
        feats, labs = system.get_features(st, offsets)
        assert (feats.tolist(), labs.tolist()) == reference.features(
            st, system.features, system.label_features, offsets)
        s0 = st.s(0)
        assert st.at(st.heads, s0).tolist() == [int(st.heads[b, w]) if w >= 0 else -1 for b, w in enumerate(s0)]
        for b in range(st.B):
            facts, blocks = reference.derived_facts(st, b)
            kept = [([int(st.lmost[b, w]), int(st.lmost2[b, w])], [int(st.rmost[b, w]), int(st.rmost2[b, w])],
                     int(st.ndeps[b, w])) for w in range(st.T)]
            assert kept == facts
            by_comp = {}
            for w in range(st.T):
                by_comp.setdefault(int(st.comp[b, w]), []).append(w)
            assert sorted(by_comp.values()) == blocks
        valid = system.valid_actions(st)
        scores = rng.random(valid.shape) + valid * 2.0
        system.apply(st, np.where(valid.any(axis=1), scores.argmax(axis=1), -1))
        steps += 1
    assert steps >= lengths.max() and (st.heads[:, 1:] >= 0).sum() > lengths.sum() // 2  # arcs were built


@pytest.mark.parametrize("finish", [False, True])
@pytest.mark.parametrize("name", ["planar", "two_planar"])
def test_planar_kernels_match_reference(name, finish):
    """Planar's moves in C (and, under the tree constraint, its validity rules
    and automatic steps) against their numpy statement and the row-by-row
    twins (tests/reference.py), on states reached by random valid actions."""
    rng = np.random.default_rng(11)
    system = make_system(name, ["a", "b", "c"])
    lengths = rng.integers(1, 18, size=40)
    st = system.init_states(lengths, finish=finish)
    unshifts = 0
    while not system.is_final(st).all():
        valid = system.valid_moves(st)
        if finish:
            st.finish = False
            expected = system.valid_moves(st)
            st.finish = True
            reference.constrain_moves(st, expected)
            assert valid.tolist() == expected.tolist()
        actions = system.valid_actions(st)
        scores = rng.random(actions.shape) + actions * 2.0
        chosen = np.where(actions.any(axis=1), scores.argmax(axis=1), -1)
        twin = st.select(np.arange(st.B))
        idx = np.flatnonzero((chosen >= 0) & ~system.is_final(st))
        moves, labels = system.table.move_of[chosen[idx]], system.table.label_of[chosen[idx]]
        system.apply_moves(st, idx, moves, labels)
        if finish:
            reference.apply_under_constraint(system, twin, idx, moves, labels)
        else:
            reference.apply_planar_moves(twin, idx, moves, labels)
        for field in ("stack", "sp", "active", "buf", "bp", "info", "ndeps", "comp", "n_arcs", "unshifted",
                      "roots_out"):
            a, b = getattr(st, field), getattr(twin, field)
            if field == "stack":  # above the stack pointer anything may be left
                live = np.arange(a.shape[2])[None, None, :] < st.sp[:, :, None]
                a, b = np.where(live, a, -1), np.where(live, b, -1)
            if field == "buf":
                live = np.arange(a.shape[1])[None, :] < st.bp[:, None]
                a, b = np.where(live, a, -1), np.where(live, b, -1)
            assert (a == b).all(), field
        st.last[idx] = moves
        st.steps[idx] += 1
        unshifts = max(unshifts, int(st.unshifted.sum()))
    assert (st.n_arcs > 0).any()
    assert (unshifts > 0) == finish  # the constraint's automatic steps were exercised


def test_best_actions_kernel_matches_masked_argmax():
    rng = np.random.default_rng(3)
    move_of = np.array([0, 1, 2, 2, 2, 3, 3, 3], dtype=np.int64)
    scores = rng.integers(-3, 3, size=(200, len(move_of))).astype("float32")  # many ties
    valid_moves = rng.random((200, 6)) < 0.4
    skip = rng.random(200) < 0.1
    got = _core.best_actions(scores, valid_moves.view(np.uint8), move_of, skip.view(np.uint8))
    valid = valid_moves[:, move_of] & ~skip[:, None]
    expected = np.where(valid, scores, -np.inf).argmax(axis=1)  # the first best, as the kernel
    expected[~valid.any(axis=1)] = -1
    assert got.tolist() == expected.tolist()
    assert (got == -1).sum() > skip.sum()  # rows with no valid move were among them


@pytest.mark.parametrize("n_pieces", [1, 2, 3])
def test_hidden_kernel_matches_reference(n_pieces):
    rng = np.random.default_rng(n_pieces)
    n_tokens, nF, nH, nL, nV = 30, 5, 8, 3, 7
    table = rng.normal(size=(n_tokens + 1, nF, nH * n_pieces)).astype("float32")
    bias = rng.normal(size=nH * n_pieces).astype("float32")
    E = rng.normal(size=(nL, nV, nH * n_pieces)).astype("float32")
    ids = rng.integers(-1, n_tokens, size=(50, nF))
    lab_ids = rng.integers(-1, nV - 1, size=(50, nL))
    got = _hidden.hidden(table.reshape(-1, nH * n_pieces), nF, bias, ids, E, lab_ids, n_pieces)
    want = np.asarray(reference.hidden(table, bias, ids, E, lab_ids, n_pieces))
    assert got.shape == (50, nH)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("finish", [False, True])
@pytest.mark.parametrize("name", ["planar", "two_planar"])
def test_link_costs_kernel_matches_reference(name, finish):
    """The planar systems' dynamic oracle in C against its numpy twin, on
    Gothic trees (crossing links, so 2-planar's conflict pairs count), in
    states reached by the static oracle's action or, one step in three, a
    random valid one."""

    from spacy_planar.io.conllu import read_conllu
    from spacy_planar.parser.transition.catalog import make_oracle, system_for_trees
    trees = [(s.heads, s.deprels) for i, s in enumerate(read_conllu(fixture_path())) if i % 4 == 0]
    system = system_for_trees(name, trees)
    st = system.init_states([len(h) for h, _ in trees], finish=finish)
    gold = make_oracle(system, st, [system.label_tree(system.prepare_tree(*t)) for t in trees])
    assert name == "planar" or len(gold.pairs) > 50
    rng = np.random.default_rng(5)
    checked = np.zeros(6, dtype=int)  # finite costs compared, per move
    while not system.is_final(st).all():
        cost, label = gold.costs(st)
        expected_cost, expected_label = reference.link_costs(system, st, gold)
        assert np.array_equal(cost, expected_cost)
        assert np.array_equal(label, expected_label)
        checked += np.isfinite(cost[~system.is_final(st)]).sum(axis=0)
        valid = system.valid_actions(st)
        static = system.table.action(*gold.static(st))
        random = (rng.random(valid.shape) + 2 * valid).argmax(axis=1)
        use_static = valid[st.rows, static] & (rng.random(st.B) < 2 / 3)
        system.apply(st, np.where(valid.any(axis=1), np.where(use_static, static, random), -1))
    assert (checked[list(system.moves)] > 1000).all()
