"""``spacy-planar.BiaffineModel.v2`` (``v1``: the positional scorers off by default): the
graph-based parser's model (Dozat & Manning 2017, "Deep biaffine attention for neural dependency
parsing", sections 2.2-2.3), what Stanza, UDPipe 2 and spacy-experimental score trees with.

tok2vec (-> the parser's own encoder) -> dropout -> one ReLU layer whose four blocks are the
arc-dependent, arc-head, label-dependent and label-head representations of every word (four MLPs
in one product; four more for the positional scorers) -> dropout; then, for a sentence of n words,

    s_arc[i, j] = d_i U h_j + h_j . u             (section 2.2, eq. 6: the biaffine with the
                                                   head's prior; j = 0 is a learned root vector)
    s_label[i, l] = d'_i U_l h'_j + W_l [d'_i; h'_j] + b_l    (eq. 3-4, for the chosen head j)

The model's forward pass runs the encoder and the MLPs over the batch's Docs and returns a
``GraphScorer``, which scores the arcs of sentences (padded into one batch of products) and the
labels of given (dependent, head) pairs, each with its backward pass (and, with
``positional_width``, Stanza's linearization and distance scores of every pair: its parser's
``linearization`` and ``distance`` options, Qi et al. 2018, section 2.2); the gradients of the four
blocks are summed and go back through the MLP and the encoder once. Thinc ops and ``ops.xp``
only (runs on a GPU)."""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, Relu, chain, glorot_uniform_init
from thinc.types import Floats2d, Floats3d, Ints1d, Ints2d

BIAFFINE_PARAMS = ("Ua", "ua", "ra", "Ul", "Wl", "bl")
POSITIONAL_PARAMS = ("Plin", "Pdist")  # Stanza's linearization and distance scorers
# the label scorer's bilinear products held at once, pairs x labels x width floats (32 MB): a batch's arcs in
# chunks of this many, forward and backward (LABEL_CHUNK_FLOATS // (labels x width) pairs each)
LABEL_CHUNK_FLOATS = 1 << 23
# a fixed dropout's rate, under a name of its own: spaCy's components set ``dropout_rate`` on every layer
FIXED_RATE = "fixed_rate"


@registry.architectures("spacy-planar.BiaffineModel.v1")
def build_biaffine_model(tok2vec: Model[List[Doc], List[Floats2d]], arc_width: int = 400, label_width: int = 100,
                         nO: Optional[int] = None, mlp_dropout: Optional[float] = None, input_dropout: float = 0.0,
                         encoder: Optional[Model[List[Floats2d], List[Floats2d]]] = None,
                         positional_width: int = 0) -> Model:
    """Pick this for the graph-based parser (``biaffine_parser``). ``arc_width``
    and ``label_width``: the MLPs' widths before the arc and the label
    biaffines (Stanza's 400 and 400; Dozat & Manning's 500 and 100);
    ``nO``: the number of labels, set by the component. ``tok2vec`` is
    usually a ``spacy.Tok2VecListener.v1`` of the pipeline's shared encoder;
    ``encoder``: a layer of the parser's own above it (a
    ``spacy-planar.BiLSTMEncoder.v1``, as Stanza's parser runs its own
    BiLSTM), None: none. ``input_dropout``: dropout on the encoder's output
    before the MLPs (Dozat & Manning 0.33, Stanza 0.5); ``mlp_dropout``: the
    MLPs' dropout, None: ``training.dropout``. ``positional_width``: with
    more than 0, Stanza's linearization (is the head left or right?) and
    distance scorers, each a biaffine of this width whose log-likelihood of
    every candidate head is added to its arc score (detached: each learns
    from its own loss at the gold heads); 0: none."""
    mlp_out = 2 * arc_width + 2 * label_width + 4 * positional_width
    mlp: Model = Relu(nO=mlp_out, dropout=0.25 if mlp_dropout is None else None)  # 0.25: training.dropout sets it
    if mlp_dropout is not None:
        mlp = chain(mlp, fixed_dropout(mlp_dropout))
    if input_dropout:
        mlp = chain(fixed_dropout(input_dropout), mlp)
    params = BIAFFINE_PARAMS + (POSITIONAL_PARAMS if positional_width else ())
    biaffine = Model("biaffine", biaffine_forward, init=_biaffine_init,
                     dims={"nA": arc_width, "nB": label_width, "nP": positional_width, "nO": nO},
                     params={name: None for name in params})
    refs = {"tok2vec": tok2vec, "mlp": mlp, "biaffine": biaffine}
    if encoder is not None:
        refs["encoder"] = encoder
    layers = [tok2vec, *([encoder] if encoder is not None else []), mlp, biaffine]
    return Model("biaffine_parser", forward, init=init, layers=layers, refs=refs, dims={"nO": nO})


@registry.architectures("spacy-planar.BiaffineModel.v2")
def build_biaffine_model_v2(tok2vec: Model[List[Doc], List[Floats2d]], arc_width: int = 400, label_width: int = 100,
                            nO: Optional[int] = None, mlp_dropout: Optional[float] = None, input_dropout: float = 0.0,
                            encoder: Optional[Model[List[Floats2d], List[Floats2d]]] = None,
                            positional_width: int = 100) -> Model:
    """``BiaffineModel.v1`` with Stanza's positional scorers on by default (``positional_width``
    100: docs/decisions.md, 2026-12-03). A new version, so that a pipeline saved with v1 and no
    ``positional_width`` in its config loads as it was trained (v1's default, 0)."""
    return build_biaffine_model(tok2vec, arc_width, label_width, nO, mlp_dropout, input_dropout, encoder,
                                positional_width)


def fixed_dropout(rate: float) -> Model[Floats2d, Floats2d]:
    """Dropout at ``rate`` while training, whatever ``training.dropout`` says."""
    return Model("fixed_dropout", _fixed_dropout_forward, attrs={FIXED_RATE: rate})


def _fixed_dropout_forward(model: Model, X: Floats2d, is_train: bool) -> Tuple[Floats2d, Callable]:
    rate = model.attrs[FIXED_RATE]
    if not is_train or not rate:
        return X, lambda dY: dY
    mask = model.ops.get_dropout_mask(X.shape, rate)
    return X * mask, lambda dY: dY * mask


def biaffine_forward(model: Model, Z: Floats2d, is_train: bool) -> Tuple["GraphScorer", Callable]:
    """The MLP's output -> its ``GraphScorer``; the scorer's passes give the gradient of ``Z``,
    which the backward pass hands on."""
    return GraphScorer(model, Z), lambda dZ: dZ


def init(model: Model, X=None, Y=None) -> Model:
    tok2vec, mlp, biaffine = model.get_ref("tok2vec"), model.get_ref("mlp"), model.get_ref("biaffine")
    if X is not None:
        tok2vec.initialize(X=X)
    width = tok2vec.get_dim("nO")
    if model.has_ref("encoder"):
        encoder = model.get_ref("encoder")
        encoder.initialize()
        width = encoder.get_dim("nO")
    next(node for node in mlp.walk() if node.name == "relu").set_dim("nI", width)
    mlp.initialize()
    if model.has_dim("nO") and model.get_dim("nO"):
        biaffine.set_dim("nO", model.get_dim("nO"), force=True)
    biaffine.initialize()
    return model


def _biaffine_init(model: Model, X=None, Y=None) -> Model:
    """The biaffines start at zero (the MLPs carry the signal: their products' gradients are
    not zero), the root's vector as a word's would be (glorot); the positional scorers at zero."""
    ops = model.ops
    a, b, L = model.get_dim("nA"), model.get_dim("nB"), model.get_dim("nO")
    model.set_param("Ua", ops.alloc2f(a, a))
    model.set_param("ua", ops.alloc1f(a))
    model.set_param("ra", glorot_uniform_init(ops, (1, a))[0])
    model.set_param("Ul", ops.alloc3f(L, b, b))
    model.set_param("Wl", ops.alloc2f(L, 2 * b))
    model.set_param("bl", ops.alloc1f(L))
    p = model.get_dim("nP") if model.has_dim("nP") else 0
    if p:
        for name in POSITIONAL_PARAMS:
            model.set_param(name, ops.alloc2f(p + 1, p + 1))
    return model


def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple["GraphScorer", Callable]:
    """Docs -> the ``GraphScorer`` of their words (the Docs' tokens one after another); the
    backward pass takes the gradient of the MLP's output that the scorer's passes summed."""
    tok2vec, mlp, biaffine = model.get_ref("tok2vec"), model.get_ref("mlp"), model.get_ref("biaffine")
    Xs, backprop_tok2vec = tok2vec(docs, is_train)
    if model.has_ref("encoder"):
        Xs, backprop_encoder = model.get_ref("encoder")(Xs, is_train)
    else:
        def backprop_encoder(dXs):
            return dXs
    ops = model.ops
    lengths = [len(X) for X in Xs]
    X = ops.xp.concatenate(Xs) if Xs else ops.alloc2f(0, tok2vec.get_dim("nO"))
    Z, backprop_mlp = mlp(X, is_train)
    scorer, _ = biaffine(Z, is_train)

    def backprop(dZ: Floats2d) -> List[Floats2d]:
        dX = backprop_mlp(dZ)
        return backprop_tok2vec(backprop_encoder(ops.xp.split(dX, _bounds(lengths))))

    return scorer, backprop


def _bounds(lengths: List[int]) -> List[int]:
    out, total = [], 0
    for n in lengths[:-1]:
        total += n
        out.append(total)
    return out


class GraphScorer:
    """The arc and label scores of a batch's words (rows of ``Z``, the MLP's output: arc-dep,
    arc-head, label-dep, label-head blocks), each with a backward pass that increments the
    biaffines' gradients and returns the gradient of ``Z``."""

    def __init__(self, biaffine: Model, Z: Floats2d):
        self.model = biaffine
        self.ops = biaffine.ops
        self.Z = Z
        a, b = biaffine.get_dim("nA"), biaffine.get_dim("nB")
        p = biaffine.get_dim("nP") if biaffine.has_dim("nP") else 0
        widths = (a, a, b, b, p, p, p, p)  # arc dep, head; label dep, head; linearization dep, head; distance
        ends = [sum(widths[:k + 1]) for k in range(len(widths))]
        self.blocks = tuple(slice(end - w, end) for end, w in zip(ends, widths))

    @property
    def positional(self) -> bool:
        """Whether the model has the linearization and distance scorers."""
        return self.model.has_dim("nP") and bool(self.model.get_dim("nP"))

    @property
    def n_labels(self) -> int:
        return self.model.get_dim("nO")

    def restricted(self, rows: Ints1d) -> "GraphScorer":
        """The scorer of the rows ``rows`` only (the words a parse reads: not whitespace); for
        parsing (no backward pass)."""
        return GraphScorer(self.model, self.Z[self.ops.asarray(rows)])

    def arcs(self, rows: Ints2d) -> Tuple[Floats3d, Callable]:
        """``rows`` (sentences, T): each sentence's words as rows of ``Z``, -1 after its end ->
        s_arc (sentences, T, T + 1): word i taking head j (0: the root, j: the word in column
        j - 1); the pad's entries are scores too (the caller masks them)."""
        ops, xp, p = self.ops, self.ops.xp, self._params()
        rows = ops.asarray(rows)
        mask = (rows >= 0)[..., None].astype("float32")
        safe = xp.where(rows >= 0, rows, 0)
        D = self.Z[safe][..., self.blocks[0]] * mask
        B, T, a = D.shape
        H = xp.concatenate([xp.broadcast_to(p["ra"], (B, 1, a)), self.Z[safe][..., self.blocks[1]] * mask], axis=1)
        DU = (D.reshape(B * T, a) @ p["Ua"]).reshape(B, T, a)
        S = xp.matmul(DU, H.transpose(0, 2, 1)) + (H @ p["ua"])[:, None, :]

        def backprop(dS: Floats3d) -> Floats2d:
            dS = xp.ascontiguousarray(dS, dtype="float32")
            dHu = dS.sum(axis=1)  # (B, T + 1)
            self.model.inc_grad("ua", (dHu[..., None] * H).sum(axis=(0, 1)))
            dH = dHu[..., None] * p["ua"] + xp.matmul(dS.transpose(0, 2, 1), DU)
            dDU = xp.matmul(dS, H)
            self.model.inc_grad("Ua", D.reshape(B * T, a).T @ dDU.reshape(B * T, a))
            dD = (dDU.reshape(B * T, a) @ p["Ua"].T).reshape(B, T, a)
            self.model.inc_grad("ra", dH[:, 0].sum(axis=0))
            return self._scatter(safe, mask, ((0, dD), (1, dH[:, 1:])))

        return S, backprop

    def positions(self, rows: Ints2d) -> Tuple[Tuple[Floats3d, Floats3d], Callable]:
        """``rows`` as for ``arcs`` -> the linearization and the distance scores (sentences, T,
        T + 1) of word i and head j, each ``[d_i; 1] P [h_j; 1]`` (the root's h: zeros), and their
        backward pass ((d_lin, d_dist) -> the gradient of ``Z``)."""
        ops, xp = self.ops, self.ops.xp
        rows = ops.asarray(rows)
        mask = (rows >= 0)[..., None].astype("float32")
        safe = xp.where(rows >= 0, rows, 0)
        words = self.Z[safe]
        parts, backprops = [], []
        for k, name in ((4, "Plin"), (6, "Pdist")):
            D = words[..., self.blocks[k]] * mask
            H = words[..., self.blocks[k + 1]] * mask
            H = xp.concatenate([xp.zeros((H.shape[0], 1, H.shape[2]), dtype="float32"), H], axis=1)
            S, backprop = _pairwise(xp, D, H, self.model.get_param(name))
            parts.append(S)
            backprops.append((k, name, backprop))

        def backprop(d_scores) -> Floats2d:
            grads = []
            for (k, name, back), dS in zip(backprops, d_scores):
                dD, dH, dP = back(xp.ascontiguousarray(dS, dtype="float32"))
                self.model.inc_grad(name, dP)
                grads += [(k, dD), (k + 1, dH[:, 1:])]
            return self._scatter(safe, mask, grads)

        return (parts[0], parts[1]), backprop

    def labels(self, deps: Ints1d, heads: Ints1d) -> Tuple[Floats2d, Callable]:
        """s_label (pairs, labels) of the arcs heads[k] -> deps[k] between words (rows of ``Z``;
        an arc from the root has the root's label, never scored). The bilinear term's (pairs,
        labels, width) products run ``label_chunks`` at a time, forward and backward, so a batch's
        memory is its scores', not labels x width times more (270 labels on Latin)."""
        ops, xp, p = self.ops, self.ops.xp, self._params()
        deps, heads = ops.asarray(deps), ops.asarray(heads)
        L, b = p["Ul"].shape[:2]
        Ld = self.Z[deps][:, self.blocks[2]]
        Lh = self.Z[heads][:, self.blocks[3]]
        U = p["Ul"].transpose(1, 0, 2).reshape(b, L * b)  # (b, L b): U[x, (l, y)] = Ul[l, x, y]
        pair = xp.concatenate([Ld, Lh], axis=1)
        S = pair @ p["Wl"].T + p["bl"]
        chunks = label_chunks(len(Ld), L * b)
        for at in chunks:
            S[at] += xp.matmul((Ld[at] @ U).reshape(-1, L, b), Lh[at][:, :, None])[:, :, 0]

        def backprop(dS: Floats2d) -> Floats2d:
            dS = xp.ascontiguousarray(dS, dtype="float32")
            dLd, dLh = dS @ p["Wl"][:, :b], dS @ p["Wl"][:, b:]
            dU = ops.alloc2f(b, L * b)
            for at in chunks:
                dA = (dS[at][:, :, None] * Lh[at][:, None, :]).reshape(-1, L * b)  # (chunk, L b)
                dLh[at] += (dS[at][:, :, None] * (Ld[at] @ U).reshape(-1, L, b)).sum(axis=1)
                dU += Ld[at].T @ dA
                dLd[at] += dA @ U.T
            self.model.inc_grad("Ul", dU.reshape(b, L, b).transpose(1, 0, 2))
            self.model.inc_grad("Wl", dS.T @ pair)
            self.model.inc_grad("bl", dS.sum(axis=0))
            dZ = ops.alloc2f(*self.Z.shape)
            dZ[:, self.blocks[2]] = _scatter_rows(ops, self.Z.shape[0], deps, dLd)
            dZ[:, self.blocks[3]] = _scatter_rows(ops, self.Z.shape[0], heads, dLh)
            return dZ

        return S, backprop

    def _params(self) -> dict:
        return {name: self.model.get_param(name) for name in BIAFFINE_PARAMS}

    def _scatter(self, safe: Ints2d, mask, parts) -> Floats2d:
        """The gradient of ``Z`` from (block, gradient per padded word) parts."""
        dZ = self.ops.alloc2f(*self.Z.shape)
        flat = safe.reshape(-1)
        for block, d in parts:
            d = (d * mask).reshape(flat.shape[0], -1)
            dZ[:, self.blocks[block]] = _scatter_rows(self.ops, self.Z.shape[0], flat, d)
        return dZ


def label_chunks(pairs: int, floats_per_pair: int) -> List[slice]:
    """The pairs' slices of at most ``LABEL_CHUNK_FLOATS`` floats of (pairs, labels, width) each."""
    step = max(1, LABEL_CHUNK_FLOATS // max(floats_per_pair, 1))
    return [slice(at, min(at + step, pairs)) for at in range(0, pairs, step)]


def _pairwise(xp, D: Floats3d, H: Floats3d, P: Floats2d) -> Tuple[Floats3d, Callable]:
    """S[b, i, j] = [D[b, i]; 1] P [H[b, j]; 1] (a biaffine with both linear terms and a bias)
    and its backward pass: dS -> (dD, dH, dP)."""
    B, T, k = D.shape
    D1 = xp.concatenate([D, xp.ones((B, T, 1), dtype="float32")], axis=2)
    H1 = xp.concatenate([H, xp.ones((B, H.shape[1], 1), dtype="float32")], axis=2)
    DP = (D1.reshape(B * T, k + 1) @ P).reshape(B, T, k + 1)
    S = xp.matmul(DP, H1.transpose(0, 2, 1))

    def backprop(dS: Floats3d):
        dSH = xp.matmul(dS, H1)  # (B, T, k + 1)
        dP = D1.reshape(B * T, k + 1).T @ dSH.reshape(B * T, k + 1)
        dD = (dSH.reshape(B * T, k + 1) @ P.T).reshape(B, T, k + 1)[..., :k]
        dH = xp.matmul(dS.transpose(0, 2, 1), DP)[..., :k]
        return dD, dH, dP

    return S, backprop


def _scatter_rows(ops, n: int, rows, values) -> Floats2d:
    out = ops.alloc2f(n, values.shape[1])
    ops.scatter_add(out, ops.xp.ascontiguousarray(rows, dtype="int32"),
                    ops.xp.ascontiguousarray(values, dtype="float32"))
    return out
