"""The parser's Thinc model.

``spacy-planar.PlanarParserModel.v1``: tok2vec -> the tokens of each state's
feature slots, plus the labels of the arcs into some of them -> one hidden
maxout layer -> a score per action. As in spaCy's
parser, the hidden layer's input projection is *precomputable*: each token's
contribution to each feature slot is computed once per batch of Docs (a
table of shape (tokens + 1, slots, hidden x pieces) made by one gemm, the last
row holding each slot's learned vector of an absent token), so that a
transition costs a gather per slot and a sum. Training with a static oracle knows every state's feature tokens in
advance, so the whole batch of transitions is scored in one pass, and the
backward pass scatters into the table once. Thinc ops only (runs on GPU).
"""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

import numpy

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Dropout, Linear, Model, glorot_uniform_init, zero_init
from thinc.types import Floats2d, Floats3d, Ints2d

from . import _hidden


@registry.architectures("spacy-planar.PlanarParserModel.v1")
def build_planar_parser_model(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 64,
    maxout_pieces: int = 2,
    labels_apart: bool = False,
    nO: Optional[int] = None,
) -> Model:
    """Pick this for every transition system of spacy-planar. The hidden layer
    is a maxout of ``maxout_pieces`` pieces, or a ReLU when that is 1 (half the
    work per token and per transition). ``tok2vec`` is
    usually a ``spacy.Tok2VecListener.v1`` sharing the pipeline's tok2vec;
    ``nO`` (the number of actions) and the number of feature slots are set by
    the component from its transition system.

    ``labels_apart``: a second output layer scores the parts actions share
    (``ActionTable.factors``: the move, the plain label, a pseudo-projective
    mark), and each action's score adds the scores of its parts to its own.
    A rare labelled action then learns from every action with its move or
    its label. At parse time the two layers are summed into one (the same
    scores, the same speed)."""
    lower = Model(
        "planar_precomputable",
        lower_forward,
        init=lower_init,
        dims={"nI": None, "nF": None, "nH": hidden_width, "nP": maxout_pieces},
        params={"W": None, "b": None, "pad": None},
    )
    labels = Model(
        "planar_label_features",
        labels_forward,
        init=labels_init,
        dims={"nL": None, "nV": None, "nO": hidden_width * maxout_pieces},
        params={"E": None},
    )
    upper = Linear(nO=nO, nI=hidden_width, init_W=zero_init)
    dropout = Dropout(0.1)  # on the hidden layer; training.dropout sets its rate
    layers = [tok2vec, lower, upper, dropout, labels]
    refs = {"tok2vec": tok2vec, "lower": lower, "upper": upper, "dropout": dropout, "labels": labels}
    if labels_apart:
        # the parts' scores; the component sets nK and attrs["parts"] (actions x parts, 0/1)
        refs["parts"] = Linear(nI=hidden_width, init_W=zero_init)
        layers.append(refs["parts"])
    return Model("planar_parser", forward, init=init, layers=layers, refs=refs, dims={"nO": nO})


def init(model: Model, X=None, Y=None) -> Model:
    tok2vec, lower, upper, _, labels = model.layers[:5]
    if X is not None:
        tok2vec.initialize(X=X)
    if not lower.has_dim("nI"):
        lower.set_dim("nI", tok2vec.get_dim("nO"))
    lower.initialize()
    labels.initialize()
    if model.has_dim("nO"):
        upper.set_dim("nO", model.get_dim("nO"))
    upper.initialize()
    if model.has_ref("parts"):
        model.get_ref("parts").initialize()
    return model


def output_weights(model: Model):
    """The output layer's weights (actions, hidden) and bias, with the
    parts' layer folded in where labels are scored apart: W + P V, b + P c
    for the (actions, parts) matrix P."""
    upper = model.get_ref("upper")
    W, b = upper.get_param("W"), upper.get_param("b")
    if not model.has_ref("parts"):
        return W, b
    parts = model.get_ref("parts")
    P = model.ops.asarray(parts.attrs["parts"])
    return W + P @ parts.get_param("W"), b + P @ parts.get_param("b")


def lower_init(model: Model, X=None, Y=None) -> Model:
    nF, nH, nP, nI = (model.get_dim(d) for d in ("nF", "nH", "nP", "nI"))
    model.set_param("W", glorot_uniform_init(model.ops, (nF * nH * nP, nI)))
    model.set_param("b", model.ops.alloc1f(nH * nP))
    model.set_param("pad", model.ops.alloc2f(nF, nH * nP))
    return model


def labels_init(model: Model, X=None, Y=None) -> Model:
    nL, nV, nO = (model.get_dim(d) for d in ("nL", "nV", "nO"))
    model.set_param("E", model.ops.alloc3f(nL, nV, nO))
    return model


def labels_forward(model: Model, lab_ids: Ints2d, is_train: bool) -> Tuple[Floats2d, Callable]:
    """Label features: for each slot, the label of the arc into that word (the
    last row: no arc) -> its learned contribution to the hidden layer."""
    E = model.get_param("E")
    nL, nV, nO = E.shape
    rows = model.ops.xp.where(lab_ids < 0, nV - 1, lab_ids)
    out = model.ops.alloc2f(lab_ids.shape[0], nO)
    for l in range(nL):
        out += E[l].take(rows[:, l], axis=0)

    def backprop(d_out: Floats2d) -> None:
        dE = model.ops.alloc3f(nL, nV, nO)
        for l, slot_rows in enumerate(slot_columns(model.ops, rows)):
            model.ops.scatter_add(dE[l], slot_rows, d_out)
        model.inc_grad("E", dE)

    return out, backprop


def lower_forward(model: Model, X: Floats2d, is_train: bool) -> Tuple[Floats3d, Callable]:
    """X (tokens, nI) -> table (tokens + 1, nF, nH * nP) by one gemm; the last
    row holds each slot's padding (the vector of an absent token)."""
    nF, nH, nP = (model.get_dim(d) for d in ("nF", "nH", "nP"))
    nO = nH * nP
    W = model.get_param("W")
    table = model.ops.alloc2f(X.shape[0] + 1, nF * nO, zeros=False)
    # xp's matmul (numpy's OpenBLAS on CPU, cupy on GPU): faster here than ops.gemm (blis), with one
    # thread or several, on an idle machine or a busy one (docs/decisions.md, 2026-11-24)
    model.ops.xp.matmul(X, W.T, out=table[:-1])
    table[-1] = model.get_param("pad").ravel()

    def backprop(d_table: Floats3d) -> Floats2d:
        model.inc_grad("pad", d_table[-1])
        d_rows = d_table[:-1].reshape((X.shape[0], nF * nO))
        model.inc_grad("W", model.ops.gemm(d_rows, X, trans1=True))
        return model.ops.gemm(d_rows, W)

    return table.reshape((X.shape[0] + 1, nF, nO)), backprop


def gather_hidden(ops, table: Floats3d, b, ids: Ints2d):
    """Sum over feature slots of the table rows of each state's tokens
    (ids[s, f] = token row, -1 for absent -> the padding row) plus the bias.
    The table is read as (rows x slots, width): one ``take`` per slot.
    Returns the sums and the flat rows used (for the backward pass)."""
    n_rows, nF, width = table.shape
    flat = table.reshape((n_rows * nF, width))
    rows = ops.xp.where(ids < 0, n_rows - 1, ids) * nF + ops.xp.arange(nF)[None, :]
    hidden = flat.take(rows[:, 0], axis=0)
    for f in range(1, nF):
        hidden += flat.take(rows[:, f], axis=0)
    hidden += b
    return hidden, rows


def slot_columns(ops, rows: Ints2d) -> Ints2d:
    """The columns of ``rows`` (one per feature slot) as contiguous int32
    rows: what ``ops.scatter_add`` takes without falling back to
    ``xp.add.at`` (about 10x slower on CPU)."""
    return ops.xp.ascontiguousarray(rows.T, dtype="int32")


def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple["StateScorer", Callable]:
    """docs -> a :class:`StateScorer` over their tokens (tok2vec, then the
    precomputed first layer, once per batch); the backward pass takes the
    gradient of the feature table (from ``StateScorer.begin_update``) on
    into the tok2vec. The component calls this through ``model.predict`` /
    ``model.begin_update``, then scores its states with the scorer."""
    table, bp_table = table_forward(model, docs, is_train)
    return StateScorer(model, table), bp_table


class StateScorer:
    """Scores the actions of parser states over one batch of Docs: the
    feature table of the batch's tokens and the parameters, fetched once.
    Calling it scores without gradient (the parse loop, and the states
    visited while exploring); ``begin_update`` scores with the training
    forward."""

    def __init__(self, model: Model, table: Floats3d):
        self.model = model
        self.table = table
        lower, labels, upper = model.get_ref("lower"), model.get_ref("labels"), model.get_ref("upper")
        self.nP = lower.get_dim("nP")
        self.b = lower.get_param("b")
        self.E = labels.get_param("E")
        W, self.b_out = output_weights(model)
        self.W_T = model.ops.xp.ascontiguousarray(W.T)

    def __call__(self, ids: Ints2d, lab_ids: Ints2d) -> Floats2d:
        if self.model.ops.xp is not numpy:  # GPU: the training forward without dropout
            return states_forward(self.model, self.table, ids, lab_ids, is_train=False)[0]
        # CPU: gather, sum and maxout in one C loop
        n_rows, nF, width = self.table.shape
        hidden = _hidden.hidden(self.table.reshape((n_rows * nF, width)), nF, self.b, ids, self.E,
                                lab_ids, self.nP)
        scores = hidden @ self.W_T  # numpy's matmul, as in lower_forward
        scores += self.b_out
        return scores

    def begin_update(self, ids: Ints2d, lab_ids: Ints2d) -> Tuple[Floats2d, Callable]:
        """Scores of the states with dropout, and the backward pass to the
        gradient of the feature table."""
        return states_forward(self.model, self.table, ids, lab_ids, is_train=True)


def table_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[Floats3d, Callable]:
    """docs -> the feature table of their tokens (tok2vec, then the
    precomputed first layer); the backward pass goes on into the tok2vec."""
    tok2vec, lower = model.get_ref("tok2vec"), model.get_ref("lower")
    ops = model.ops
    tokvecs, bp_tok2vec = tok2vec(docs, is_train)
    lengths = [len(x) for x in tokvecs]
    X = ops.flatten(tokvecs) if tokvecs else ops.alloc2f(0, lower.get_dim("nI"))
    table, bp_lower = lower(X, is_train)

    def backprop(d_table: Floats3d) -> List[Floats2d]:
        return bp_tok2vec(ops.unflatten(bp_lower(d_table), lengths))

    return table, backprop


def states_forward(model: Model, table: Floats3d, ids: Ints2d, lab_ids: Ints2d,
                   is_train: bool) -> Tuple[Floats2d, Callable]:
    """(feature table, the states' feature tokens and label ids) -> scores of
    every state; the backward pass returns the gradient of the table."""
    lower, upper, dropout, labels = (model.get_ref(n) for n in ("lower", "upper", "dropout", "labels"))
    nH, nP = lower.get_dim("nH"), lower.get_dim("nP")
    ops = model.ops
    pre, rows = gather_hidden(ops, table, lower.get_param("b"), ops.asarray(ids))
    from_labels, bp_labels = labels(ops.asarray(lab_ids), is_train)
    pre += from_labels
    if nP == 1:
        hidden = ops.relu(pre)
    else:
        hidden, which = ops.maxout(pre.reshape((pre.shape[0], nH, nP)))
    dropped, bp_dropout = dropout(hidden, is_train)
    scores, bp_upper = upper(dropped, is_train)
    if model.has_ref("parts"):
        parts = model.get_ref("parts")
        P = ops.asarray(parts.attrs["parts"])
        part_scores, bp_parts = parts(dropped, is_train)
        scores = scores + part_scores @ P.T

    def backprop(d_scores: Floats2d) -> Floats3d:
        d_dropped = bp_upper(d_scores)
        if model.has_ref("parts"):
            d_dropped += bp_parts(d_scores @ P)
        d_hidden = bp_dropout(d_dropped)
        if nP == 1:
            d_pre = ops.backprop_relu(d_hidden, hidden)
        else:
            d_pre = ops.backprop_maxout(d_hidden, which, nP).reshape((d_hidden.shape[0], nH * nP))
        lower.inc_grad("b", d_pre.sum(axis=0))
        bp_labels(d_pre)
        d_table = ops.alloc3f(*table.shape)
        d_flat = d_table.reshape((table.shape[0] * table.shape[1], table.shape[2]))
        for slot_rows in slot_columns(ops, rows):
            ops.scatter_add(d_flat, slot_rows, d_pre)
        return d_table

    return scores, backprop
