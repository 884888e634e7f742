"""Top-down's weighted prediction (Hayashi et al. 2012, section 5.2): what
the system hands the model (``model_inputs``, ``step_record``,
``training_arrays``, ``limit_candidates``) and the arc scorer's gradients."""
import numpy as np
import pytest
from conftest import fixture_path
from reference import central_differences
from thinc.api import NumpyOps, fix_random_seed

from spacy_planar.io.conllu import read_conllu
from spacy_planar.parser.transition.arc_scorer import ARC_PARAMS, arcs_forward, build_arc_scorer, pred_scores
from spacy_planar.parser.transition.catalog import make_oracle, make_system, system_for_trees
from spacy_planar.parser.systems.state import INT, LEFT, PRED, SHIFT


def test_sibling_is_the_child_predicted_last_on_that_side():
    """Eq. 4's sibling: words 1 and 2 are left children of 3 (the root's
    child); after PRED(1), SCAN, COMP, the next prediction from 3 has
    sibling 1; right of 3 there is none yet."""
    system = make_system("top_down", ["dep"])
    st = system.init_states([4])
    nT = len(system.table)
    comp = system.action_of(np.array([LEFT]), np.array([system.label_ids["dep"]]))  # COMP-LEFT
    pred = lambda k: np.array([nT + k])  # noqa: E731
    for action in (pred(3),):
        system.apply(st, action)
    h, sib = system.arc_words(st)
    assert (h[0], sib[0]) == (3, -1)
    system.apply(st, pred(1))
    system.apply(st, system.action_of(np.array([SHIFT]), np.array([-1])))  # SCAN 1
    system.apply(st, comp)  # 1 <- 3
    h, sib = system.arc_words(st)
    assert (h[0], sib[0]) == (3, 1)
    ids, labs, arcs = system.model_inputs(st, np.array([10], dtype=INT))
    assert arcs.tolist() == [[12, 10, 10, 10 + st.T - 2, 11, 11, 11]]
    system.apply(st, pred(2))
    system.apply(st, system.action_of(np.array([SHIFT]), np.array([-1])))  # SCAN 2
    system.apply(st, comp)  # 2 <- 3
    system.apply(st, system.action_of(np.array([SHIFT]), np.array([-1])))  # SCAN 3: now right of 3
    h, sib = system.arc_words(st)
    assert (h[0], sib[0]) == (3, -1)


@pytest.fixture(scope="module")
def sample_trees():
    return [(s.heads, s.deprels) for s in read_conllu(fixture_path("dev")) if s.heads is not None][:200]


def test_training_arrays_are_the_valid_actions(sample_trees):
    """Along the static oracle's runs on the test treebank's trees, the valid actions and
    arc rows rebuilt for training from ``step_record`` are those the parser
    sees (``valid_actions``, ``model_inputs``), and the oracle's action is
    always among them: the training loss is over the parser's choices."""
    system = system_for_trees("top_down", sample_trees)
    prepared = [system.prepare_tree(h, l) for h, l in sample_trees]
    st = system.init_states([len(h) for h, _ in prepared])
    oracle = make_oracle(system, st, [system.label_tree(t) for t in prepared])
    offsets = np.cumsum([0] + [len(h) for h, _ in prepared[:-1]]).astype(INT)
    n_pred = 0
    while not system.is_final(st).all():
        live = ~system.is_final(st)
        moves, labels = oracle.static(st)
        actions = np.where(live, system.action_of(moves, labels), -1)
        targets, valid, (arcs,) = system.training_arrays(np.maximum(actions, 0), system.valid_moves(st),
                                                         system.step_record(st), offsets)
        want = system.valid_actions(st)
        T = valid.shape[1] - len(system.table)
        assert T <= st.T and not want[live][:, len(system.table) + T:].any()
        assert np.array_equal(valid[live], want[live][:, :valid.shape[1]])
        assert valid[live][targets[live]].all() and (targets[live].sum(axis=1) == 1).all()
        _, _, parse_arcs = system.model_inputs(st, offsets)
        assert np.array_equal(arcs[live][:, [0, 1, 2, 4, 5, 6]], parse_arcs[live][:, [0, 1, 2, 4, 5, 6]])
        n_pred += int((moves[live] == PRED).sum())
        system.apply(st, actions)
    assert n_pred == sum(len(h) for h, _ in prepared)


def test_prediction_size():
    system = make_system("top_down", ["dep"], pred_size=2)
    nT = len(system.table)
    cand = np.full((2, nT + 5), -np.inf)
    cand[0, :3] = [-1.0, -2.0, -3.0]
    cand[0, nT:] = [-np.inf, -0.5, -4.0, -0.1, -2.0]
    cand[1, nT + 1] = -1.0
    out = system.limit_candidates(cand)
    assert np.array_equal(out[0, :nT], cand[0, :nT])
    assert np.isfinite(out[0, nT:]).tolist() == [False, True, False, True, False]
    assert np.array_equal(out[1], cand[1])  # one finite PRED: nothing to cut
    one = make_system("top_down", ["dep"], pred_size=1).limit_candidates(cand)
    assert np.isfinite(one[0, nT:]).tolist() == [False, False, False, True, False]  # the best PRED alone
    assert np.array_equal(one[0, :nT], cand[0, :nT])  # the table's actions are never cut
    assert np.array_equal(make_system("top_down", ["dep"], pred_size=0).limit_candidates(cand), cand)


def test_arc_scorer_gradients():
    """The arc scorer's backward pass (to the token vectors, the states'
    hidden layer and its parameters) against finite differences of a
    random linear loss."""
    ops = NumpyOps()
    model = build_arc_scorer(6)
    model.set_dim("nI", 5)
    model.set_dim("nQ", 3)
    fix_random_seed(0)  # the initialised weights too: whatever earlier tests left in the global RNG (a kink within eps)
    model.initialize()
    rng = np.random.default_rng(0)
    for name in ("bc", "root", "none", "dist_h", "dist_i", "Edh", "Edi", "w"):  # zero at init
        model.set_param(name, rng.normal(size=model.get_param(name).shape).astype("float32"))
    X = rng.normal(size=(9, 5)).astype("float32")
    H = rng.normal(size=(4, 3)).astype("float32")
    arcs = np.array([[2, -1, 0, 3, 1, 0, 1], [-1, -1, 0, 3, 0, 0, 3], [4, 1, 5, 7, 6, 6, 7], [8, 6, 5, 7, 5, 5, 7]],
                    dtype=INT)
    R = rng.normal(size=(4, 5)).astype("float32")
    eps = 1e-3  # small: a step across a ReLU kink breaks the finite difference

    def loss(X, H):
        tables, bp = arcs_forward(model, X, is_train=True)
        scores, bp_scores = pred_scores(ops, tables, arcs, H)

        def backward():
            d_tables, d_hidden = bp_scores(R)
            return bp(d_tables), d_hidden
        return float((scores * R).sum()), backward

    def numeric(f, A):
        return central_differences(f, A, eps)

    for name in ARC_PARAMS:
        model.set_grad(name, np.zeros_like(model.get_param(name)))
    dX, dH = loss(X, H)[1]()
    np.testing.assert_allclose(dX, numeric(lambda A: loss(A, H)[0], X), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(dH, numeric(lambda A: loss(X, A)[0], H), rtol=2e-2, atol=2e-2)
    for name in ARC_PARAMS:  # every parameter (Wc, Edi and dist_h once went unchecked)
        value = model.get_param(name).copy()

        def with_param(A, name=name, value=value):
            model.set_param(name, A.astype("float32"))
            out = loss(X, H)[0]
            model.set_param(name, value)
            return out
        expected = numeric(with_param, value)
        np.testing.assert_allclose(model.get_grad(name), expected, rtol=2e-2, atol=2e-2, err_msg=name)
        assert np.abs(expected).max() > 1e-2, name  # the parameter takes part in these arcs' scores
