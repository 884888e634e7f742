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
from thinc.api import Dropout, Linear, Model, NumpyOps, glorot_uniform_init, zero_init
from thinc.types import Floats2d, Floats3d, Ints2d

from spacy_planar.parser.transition import _hidden
from spacy_planar.parser.transition.arc_scorer import build_arc_scorer, pred_scores


@registry.architectures("spacy-planar.PlanarParserModel.v1")
def build_planar_parser_model(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int,
    maxout_pieces: int,
    labels_apart: bool = False,
    arc_width: int = 0,
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
    scores, the same speed).

    ``arc_width``: the top-down system's arc scorer (Hayashi et al. 2012,
    section 5.2: weighted prediction; ``build_arc_scorer``), an MLP over the
    state, the head, the sibling and the candidate, of this width; 0: none
    (the other systems)."""
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
    if arc_width:
        refs["arcs"] = build_arc_scorer(arc_width)
        layers.append(refs["arcs"])
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
    if model.has_ref("arcs"):
        arcs = model.get_ref("arcs")
        if not arcs.has_dim("nI"):
            arcs.set_dim("nI", tok2vec.get_dim("nO"))
        arcs.set_dim("nQ", lower.get_dim("nH"))
        arcs.initialize()
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
    xp = model.ops.xp
    rows = xp.where(lab_ids < 0, nV - 1, lab_ids)
    if isinstance(model.ops, NumpyOps):  # one take per slot, summed in place
        out = model.ops.alloc2f(lab_ids.shape[0], nO)
        for l in range(nL):
            out += E[l].take(rows[:, l], axis=0)
    else:  # on a GPU (any other Ops) one gather and one sum, not a kernel per slot
        out = E.reshape((nL * nV, nO)).take((rows + xp.arange(nL)[None, :] * nV).ravel(), axis=0)
        out = out.reshape((lab_ids.shape[0], nL, nO)).sum(axis=1)

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
    # thread or several, on an idle machine or a busy one, forward and backward (docs/decisions.md,
    # 2026-11-24 and 2026-11-28)
    xp = model.ops.xp
    xp.matmul(X, W.T, out=table[:-1])
    table[-1] = model.get_param("pad").ravel()

    def backprop(d_table: Floats3d) -> Floats2d:
        model.inc_grad("pad", d_table[-1])
        d_rows = d_table[:-1].reshape((X.shape[0], nF * nO))
        model.inc_grad("W", xp.matmul(d_rows.T, X))
        return xp.matmul(d_rows, W)

    return table.reshape((X.shape[0] + 1, nF, nO)), backprop


def gather_hidden(ops, table: Floats3d, b, ids: Ints2d):
    """Sum over feature slots of the table rows of each state's tokens
    (ids[s, f] = token row, -1 for absent -> the padding row) plus the bias.
    The table is read as (rows x slots, width): one ``take`` per slot on the
    CPU (NumpyOps), one ``take`` of them all and a sum elsewhere (a GPU) (a kernel per slot
    costs more there than the memory). Returns the sums and the flat rows
    used (for the backward pass)."""
    n_rows, nF, width = table.shape
    flat = table.reshape((n_rows * nF, width))
    rows = ops.xp.where(ids < 0, n_rows - 1, ids) * nF + ops.xp.arange(nF)[None, :]
    if isinstance(ops, NumpyOps):
        hidden = flat.take(rows[:, 0], axis=0)
        for f in range(1, nF):
            hidden += flat.take(rows[:, f], axis=0)
    else:
        hidden = flat.take(rows.ravel(), axis=0).reshape((rows.shape[0], nF, width)).sum(axis=1)
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
    gradient of the feature table (from ``StateScorer.begin_update``; with
    the arc scorer, a pair: that and the arc tables' gradients) on into the
    tok2vec. The component calls this through ``model.predict`` /
    ``model.begin_update``, then scores its states with the scorer."""
    (table, arc_tables), bp_table = table_forward(model, docs, is_train)
    return StateScorer(model, table, arc_tables), bp_table


class StateScorer:
    """Scores the actions of parser states over one batch of Docs: the
    feature table of the batch's tokens and the parameters, fetched once.
    Calling it scores without gradient (the parse loop, and the states
    visited while exploring); ``begin_update`` scores with the training
    forward. With the arc scorer (top-down), a third input, the arc rows
    [states, 4] of ``TopDown.model_inputs``, turns the last score (PRED)
    into one per candidate word (``pred_scores``)."""

    def __init__(self, model: Model, table: Floats3d, arc_tables=None):
        self.model = model
        self.table = table
        self.arc_tables = arc_tables
        lower, labels = model.get_ref("lower"), model.get_ref("labels")
        self.nP = lower.get_dim("nP")
        self.b = lower.get_param("b")
        self.E = labels.get_param("E")
        W, self.b_out = output_weights(model)
        self.W_T = model.ops.xp.ascontiguousarray(W.T)
        if arc_tables is not None:  # the state's part of the arc scores, hidden @ Wq.T, as one product
            self.arc_tables = dict(arc_tables, Wq_T=model.ops.xp.ascontiguousarray(arc_tables["Wq"].T))

    def __call__(self, ids: Ints2d, lab_ids: Ints2d, arcs: Optional[Ints2d] = None) -> Floats2d:
        if not isinstance(self.model.ops, NumpyOps):  # GPU (any other Ops): the training forward, no dropout
            return states_forward(self.model, self.table, ids, lab_ids, is_train=False,
                                  arc_tables=self.arc_tables, arcs=arcs)[0]
        # CPU: gather, sum and maxout in one C loop (which reads 64-bit ids: the static oracle caches 32-bit ones)
        n_rows, nF, width = self.table.shape
        hidden = _hidden.hidden(self.table.reshape((n_rows * nF, width)), nF, self.b,
                                numpy.ascontiguousarray(ids, dtype=numpy.int64), self.E,
                                numpy.ascontiguousarray(lab_ids, dtype=numpy.int64), self.nP)
        scores = hidden @ self.W_T  # numpy's matmul, as in lower_forward
        scores += self.b_out
        if arcs is not None:  # PRED(k): the arc scores in one C loop (``pred_scores`` states them)
            t = self.arc_tables
            return _hidden.pred_scores(scores, hidden @ t["Wq_T"], t["H"], t["S"], t["C"], t["Edh"], t["Edi"],
                                       t["w"], t["dist_h"], t["dist_i"], numpy.ascontiguousarray(arcs))
        return scores

    def restricted(self, rows) -> "StateScorer":
        """The scorer over the tokens ``rows`` only, renumbered 0.. in that
        order (the parse loop reads the words that are not whitespace)."""
        xp = self.model.ops.xp
        rows = xp.asarray(rows)
        # a shallow copy, not the constructor: the constructor runs the tok2vec and precomputes the whole
        # table, which this copy shares, the rows it keeps aside
        out = object.__new__(StateScorer)
        out.__dict__.update(self.__dict__)
        out.table = xp.concatenate([self.table[rows], self.table[-1:]], axis=0)
        if self.arc_tables is not None:
            out.arc_tables = dict(self.arc_tables)
            for name in ("H", "S"):  # their last row: the root's / no sibling's vector
                out.arc_tables[name] = xp.concatenate([self.arc_tables[name][rows], self.arc_tables[name][-1:]], axis=0)
            out.arc_tables["C"] = self.arc_tables["C"][rows]
        return out

    def begin_update(self, ids: Ints2d, lab_ids: Ints2d, arcs: Optional[Ints2d] = None
                     ) -> Tuple[Floats2d, Callable]:
        """Scores of the states with dropout, and the backward pass to the
        gradient of the feature table (and of the arc tables)."""
        return states_forward(self.model, self.table, ids, lab_ids, is_train=True,
                              arc_tables=self.arc_tables, arcs=arcs)


def table_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[Tuple, Callable]:
    """docs -> the feature table of their tokens (tok2vec, then the
    precomputed first layer) and the arc scorer's tables (or None); the
    backward pass goes on into the tok2vec."""
    tok2vec, lower = model.get_ref("tok2vec"), model.get_ref("lower")
    ops = model.ops
    tokvecs, bp_tok2vec = tok2vec(docs, is_train)
    lengths = [len(x) for x in tokvecs]
    X = ops.flatten(tokvecs) if tokvecs else ops.alloc2f(0, lower.get_dim("nI"))
    table, bp_lower = lower(X, is_train)
    arc_tables, bp_arcs = model.get_ref("arcs")(X, is_train) if model.has_ref("arcs") else (None, None)

    def backprop(d_table) -> List[Floats2d]:
        if isinstance(d_table, tuple):  # with the arc tables' gradients
            d_table, d_arcs = d_table
            dX = bp_lower(d_table)
            if d_arcs is not None:
                dX += bp_arcs(d_arcs)
        else:
            dX = bp_lower(d_table)
        return bp_tok2vec(ops.unflatten(dX, lengths))

    return (table, arc_tables), backprop


def states_forward(model: Model, table: Floats3d, ids: Ints2d, lab_ids: Ints2d,
                   is_train: bool, arc_tables=None, arcs: Optional[Ints2d] = None) -> Tuple[Floats2d, Callable]:
    """(feature table, the states' feature tokens and label ids) -> scores of
    every state; the backward pass returns the gradient of the table. With
    ``arcs`` (top-down), the last score, PRED's, becomes one per candidate
    word (``pred_scores`` added to it), and the backward pass returns the
    pair (the table's gradient, the arc tables')."""
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
    if arcs is not None:
        pred, bp_pred = pred_scores(ops, arc_tables, arcs, dropped)
        scores = ops.xp.concatenate([scores[:, :-1], scores[:, -1:] + pred], axis=1)

    def backprop(d_scores: Floats2d) -> Floats3d:
        if arcs is not None:
            d_pred = d_scores[:, upper.get_dim("nO") - 1:]
            d_arcs, d_from_arcs = bp_pred(d_pred)
            d_scores = ops.xp.concatenate([d_scores[:, :upper.get_dim("nO") - 1], d_pred.sum(axis=1, keepdims=True)],
                                          axis=1)
        d_dropped = bp_upper(d_scores)
        if arcs is not None:
            d_dropped += d_from_arcs
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
        return (d_table, d_arcs) if arcs is not None else d_table

    return scores, backprop
