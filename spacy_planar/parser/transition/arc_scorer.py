"""The arc scorer of weighted prediction (Hayashi et al. 2012, top-down parsing): token vectors ->
the tables that score PRED(k) for every candidate word k of a state, the part of the parser's model
(``PlanarParserModel.v1`` with ``arc_width`` > 0) that top-down's word moves need. Thinc ops only."""
from __future__ import annotations

from typing import Callable, Tuple

from thinc.api import Model, glorot_uniform_init
from thinc.types import Floats2d, Ints2d

ARC_PARAMS = ("Wh", "Ws", "Wc", "bc", "root", "none", "Wq", "Edh", "Edi", "w", "dist_h", "dist_i")


def build_arc_scorer(width: int) -> Model:
    """Token vectors -> the tables that score PRED(k), the arc h -> k after
    the sibling s predicted last on k's side (Hayashi et al. 2012, eq. 3-4),
    an MLP over the pair (Kiperwasser & Goldberg 2016) conditioned on the
    state:

        w . relu(H[h] + S[s] + C[k] + Q h_state + E_h[k - h] + E_i[k - i])
            + d_h[k - h] + d_i[k - i]

    H, S, C: linear maps of the token vectors (``width``), with learned
    vectors for the artificial root as h and for "no sibling yet" as s;
    h_state: the parser's hidden layer for the state, which sees s1 (h's
    own head), h's children so far and the words from the queue's front i;
    E_h, E_i, d_h, d_i: the signed distance from h and the distance from i,
    in buckets (MSTParser's distance and direction features). H[h] + C[k]
    is the first-order factor, S[s] + C[k] the sibling factor of eq. 4, and
    the pair is scored as one (the relu mixes them), for the candidates in
    the state's prediction range only. A biaffine scorer over the token
    vectors (Dozat & Manning 2017) in its place, or added, parsed worse on
    Gothic dev (docs/decisions.md)."""
    return Model("planar_arc_scorer", arcs_forward, init=arcs_init, dims={"nI": None, "nA": width, "nQ": None},
                 params={name: None for name in ARC_PARAMS})


# distance buckets: |d| up to 1, 2, 3, 4, 6, 9, 14, 19, more (signed for h -> c, the root apart)
DIST_EDGES = (1, 2, 3, 4, 6, 9, 14, 19)
N_DIST_H = 2 * (len(DIST_EDGES) + 1) + 1
N_DIST_I = len(DIST_EDGES) + 2  # 0 .. more


def distance_buckets(xp, d, root=None):
    """Bucket of each distance: with ``root`` (a mask), signed (c - h), the
    root's arcs the last bucket; else d >= 0 (c - i)."""
    edges = xp.asarray(DIST_EDGES)
    mag = xp.searchsorted(edges, xp.abs(d), side="left")  # 1 -> 0, 2 -> 1, ..., > 19 -> 8
    if root is None:
        return xp.where(d <= 0, 0, mag + 1)
    return xp.where(root, N_DIST_H - 1, xp.where(d < 0, mag, mag + len(DIST_EDGES) + 1))


def arcs_init(model: Model, X=None, Y=None) -> Model:
    nI, nA, nQ = model.get_dim("nI"), model.get_dim("nA"), model.get_dim("nQ")
    ops = model.ops
    for name in ("Wh", "Ws", "Wc"):
        model.set_param(name, glorot_uniform_init(ops, (nA, nI)))
    model.set_param("Wq", glorot_uniform_init(ops, (nA, nQ)))
    for name in ("bc", "root", "none", "w"):
        model.set_param(name, ops.alloc1f(nA))
    model.set_param("Edh", ops.alloc2f(N_DIST_H, nA))
    model.set_param("Edi", ops.alloc2f(N_DIST_I, nA))
    model.set_param("dist_h", ops.alloc1f(N_DIST_H))
    model.set_param("dist_i", ops.alloc1f(N_DIST_I))
    return model


TABLE_PARAMS = ("Wq", "Edh", "Edi", "w", "dist_h", "dist_i")  # read per state, as they are


def arcs_forward(model: Model, X: Floats2d, is_train: bool) -> Tuple[dict, Callable]:
    """X (tokens, nI) -> the tables of ``pred_scores``: H and S (tokens + 1,
    nA), their last rows the root's and "no sibling"'s vectors; C (tokens,
    nA); and the parameters read per state. The backward pass takes their
    gradients (a dict of the same keys) to the gradient of X."""
    ops = model.ops
    p = {name: model.get_param(name) for name in ARC_PARAMS}
    tables = {"H": ops.xp.concatenate([ops.gemm(X, p["Wh"], trans2=True), p["root"][None, :]], axis=0),
              "S": ops.xp.concatenate([ops.gemm(X, p["Ws"], trans2=True), p["none"][None, :]], axis=0),
              "C": ops.gemm(X, p["Wc"], trans2=True) + p["bc"], **{name: p[name] for name in TABLE_PARAMS}}

    def backprop(d: dict) -> Floats2d:
        for name in TABLE_PARAMS:
            model.inc_grad(name, d[name])
        model.inc_grad("root", d["H"][-1])
        model.inc_grad("none", d["S"][-1])
        model.inc_grad("bc", d["C"].sum(axis=0))
        dX = ops.alloc2f(*X.shape)
        for name, dY in (("Wh", d["H"][:-1]), ("Ws", d["S"][:-1]), ("Wc", d["C"])):
            model.inc_grad(name, ops.gemm(dY, X, trans1=True))
            dX += ops.gemm(dY, p[name])
        return dX

    return tables, backprop


def pred_scores(ops, tables: dict, arcs: Ints2d, hidden: Floats2d) -> Tuple[Floats2d, Callable]:
    """The arc scores of PRED(k) of each state, k < T: arcs[s] = (h, sibling,
    word 1, word T - 1, the queue's front i, the first and the last word of
    the prediction range) as token rows (-1: the root / no sibling); word k
    is row ``arcs[s, 2] + k - 1``; ``hidden``: the states' hidden layer.
    Candidates outside the range (invalid) score the distance weights only.
    Returns [states, T] and the backward pass to (the tables' gradients,
    the hidden layer's)."""
    xp = ops.xp
    H, S, C = tables["H"], tables["S"], tables["C"]
    arcs = ops.asarray(arcs)
    N = C.shape[0]
    T = int((arcs[:, 3] - arcs[:, 2]).max()) + 2 if arcs.shape[0] else 1
    word = arcs[:, 2:3] + xp.arange(T)[None, :] - 1  # the candidates' token rows
    h = xp.where(arcs[:, 0] < 0, N, arcs[:, 0])
    s = xp.where(arcs[:, 1] < 0, N, arcs[:, 1])
    bh = distance_buckets(xp, word - arcs[:, 0:1], root=xp.broadcast_to(arcs[:, 0:1] < 0, word.shape))
    bi = distance_buckets(xp, word - arcs[:, 4:5])
    scores = tables["dist_h"][bh] + tables["dist_i"][bi]
    r, t = xp.nonzero((word >= arcs[:, 5:6]) & (word <= arcs[:, 6:7]) & (word >= 0) & (word < N))
    k = word[r, t]
    P = ops.gemm(hidden, tables["Wq"], trans2=True) + H[h] + S[s]  # the state's part
    z_pre = P[r] + C[k] + tables["Edh"][bh[r, t]] + tables["Edi"][bi[r, t]]
    z = ops.relu(z_pre)
    scores[r, t] += z @ tables["w"]

    def backprop(d_scores: Floats2d):
        d_scores = xp.ascontiguousarray(d_scores, dtype="float32")
        i32 = lambda a: xp.ascontiguousarray(a.reshape(-1), dtype="int32")  # noqa: E731
        flat_d = d_scores.reshape(-1)
        d = {"dist_h": xp.bincount(i32(bh), weights=flat_d, minlength=N_DIST_H).astype("float32"),
             "dist_i": xp.bincount(i32(bi), weights=flat_d, minlength=N_DIST_I).astype("float32")}
        dm = d_scores[r, t]
        d["w"] = z.T @ dm
        dz = xp.ascontiguousarray((dm[:, None] * tables["w"][None, :]) * (z_pre > 0), dtype="float32")
        for name, rows in (("C", k), ("Edh", bh[r, t]), ("Edi", bi[r, t])):
            d[name] = ops.alloc(tables[name].shape)
            ops.scatter_add(d[name], i32(rows), dz)
        dP = ops.alloc2f(*P.shape)
        ops.scatter_add(dP, i32(r), dz)
        for name, rows in (("H", h), ("S", s)):
            d[name] = ops.alloc(tables[name].shape)
            ops.scatter_add(d[name], i32(rows), dP)
        d["Wq"] = ops.gemm(dP, hidden, trans1=True)
        return d, ops.gemm(dP, tables["Wq"])

    return scores, backprop
