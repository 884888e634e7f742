"""The transition parser's model (model/parser_model.py) against finite differences: the
precomputed first layer (lower_forward), the label features (labels_forward), the states' hidden
layer and output (states_forward), the parts' layer folded in (labels_apart); on NumpyOps and on
Thinc's generic Ops (what CupyOps inherits: the branches a GPU runs), whose scores are NumpyOps'."""
import numpy as np
import pytest
from reference import central_differences
from thinc.api import NumpyOps, Ops

from spacy_planar.parser.transition.parser_model import (build_planar_parser_model, lower_forward, output_weights,
                                                       states_forward)

N_ACTIONS, N_PARTS = 5, 3
PARAMS = {"lower": ("W", "b", "pad"), "labels": ("E",), "upper": ("W", "b"), "parts": ("W", "b")}


def _model(ops, pieces: int, labels_apart: bool, seed: int = 0):
    """A parser model of 3 slots, 2 label slots, hidden 3 x ``pieces``, 5 actions (3 parts), on
    ``ops``, every parameter random (away from zero, so that every product has a gradient)."""
    from thinc.api import noop

    model = build_planar_parser_model(noop(), hidden_width=3, maxout_pieces=pieces, labels_apart=labels_apart,
                                      nO=N_ACTIONS)
    for node in model.walk():
        node.ops = ops
    lower, labels = model.get_ref("lower"), model.get_ref("labels")
    lower.set_dim("nI", 4)
    lower.set_dim("nF", 3)
    labels.set_dim("nL", 2)
    labels.set_dim("nV", 4)
    lower.initialize()
    labels.initialize()
    model.get_ref("upper").set_dim("nO", N_ACTIONS)
    model.get_ref("upper").initialize()
    if labels_apart:
        parts = model.get_ref("parts")
        parts.set_dim("nO", N_PARTS)
        parts.attrs["parts"] = np.array([[1, 0, 0], [1, 0, 1], [0, 1, 0], [0, 1, 1], [0, 0, 1]], dtype="float32")
        parts.initialize()
    model.get_ref("dropout").attrs["dropout_rate"] = 0.0
    rng = np.random.default_rng(seed)
    for ref, names in PARAMS.items():
        if model.has_ref(ref):
            layer = model.get_ref(ref)
            for name in names:
                layer.set_param(name, (rng.normal(size=layer.get_param(name).shape) * 0.7).astype("float32"))
                layer.set_grad(name, np.zeros_like(layer.get_param(name)))
    return model


X = np.random.default_rng(1).normal(size=(6, 4)).astype("float32")
IDS = np.array([[0, 1, -1], [2, -1, 5], [3, 3, 4], [-1, -1, -1], [5, 0, 2]])
LAB_IDS = np.array([[0, -1], [2, 1], [-1, -1], [1, 1], [0, 2]])
R = np.random.default_rng(2).normal(size=(5, N_ACTIONS)).astype("float32")


def _loss(model, X):
    table, bp_lower = lower_forward(model.get_ref("lower"), X, True)
    scores, bp_states = states_forward(model, table, IDS, LAB_IDS, is_train=True)
    return float((scores.astype("float64") * R).sum()), lambda: bp_lower(bp_states(R))


@pytest.mark.parametrize("ops", [NumpyOps(), Ops()], ids=["numpy", "generic"])
@pytest.mark.parametrize("pieces,labels_apart", [(1, False), (2, False), (2, True)])
def test_the_parser_models_gradients_are_its_scores(ops, pieces, labels_apart):
    model = _model(ops, pieces, labels_apart)
    dX = _loss(model, X)[1]()
    expected = central_differences(lambda A: _loss(model, A.astype("float32"))[0], X)
    np.testing.assert_allclose(dX, expected, rtol=2e-2, atol=2e-2)
    for ref, names in PARAMS.items():
        if not model.has_ref(ref):
            continue
        layer = model.get_ref(ref)
        for name in names:
            value = layer.get_param(name).copy()

            def at(A, layer=layer, name=name, value=value):
                layer.set_param(name, A.astype("float32"))
                out = _loss(model, X)[0]
                layer.set_param(name, value)
                return out

            expected = central_differences(at, value)
            np.testing.assert_allclose(layer.get_grad(name), expected, rtol=2e-2, atol=2e-2, err_msg=f"{ref}.{name}")
            assert np.abs(expected).max() > 1e-2, f"{ref}.{name}"  # it takes part in these states' scores


@pytest.mark.parametrize("pieces,labels_apart", [(1, False), (2, True)])
def test_parsing_scores_are_the_training_forwards_on_any_ops(pieces, labels_apart):
    """The parse loop's scorer (NumpyOps: the C loop over the folded output layer; generic Ops:
    the training forward) gives the training forward's scores, on both Ops alike."""
    from spacy_planar.parser.transition.parser_model import StateScorer

    scores = {}
    for ops in (NumpyOps(), Ops()):
        model = _model(ops, pieces, labels_apart)
        table, _ = lower_forward(model.get_ref("lower"), X, False)
        trained, _ = states_forward(model, table, IDS, LAB_IDS, is_train=True)
        parsed = StateScorer(model, table)(IDS, LAB_IDS)
        np.testing.assert_allclose(parsed, trained, rtol=1e-5, atol=1e-5)
        scores[type(ops).__name__] = parsed
        W, b = output_weights(model)
        assert W.shape == (N_ACTIONS, 3) and b.shape == (N_ACTIONS,)
    np.testing.assert_allclose(scores["NumpyOps"], scores["Ops"], rtol=1e-5, atol=1e-5)
