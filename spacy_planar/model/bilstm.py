"""``spacy-planar.BiLSTMEncoder.v1``: a tok2vec ``encode`` with a BiLSTM, on Thinc ops.

The parsers that lead on small treebanks read a bidirectional LSTM over
their word vectors (UDPipe 2, Stanza; Kiperwasser & Goldberg 2016 show
that with one a transition parser needs few feature positions). This one
needs no PyTorch. The words first go through ``cnn_depth`` layers of
spaCy's window CNN (``MaxoutWindowEncoder.v2``: a cheap local context,
which an LSTM trained from scratch on a thousand sentences was measured
to need), then through a BiLSTM of ``depth`` layers (``width / 2`` units
each way, DropConnect ``dropout`` on its weights) added to its input and
layer-normalised, so the encoder starts as the CNN and learns what the
LSTM adds. It stands wherever a tok2vec's ``encode`` does: our parser,
spaCy's parser, tagger and morphologizer.

The LSTM is written here, on the ops' array module (a step per time step,
the batch's sequences at once), not Thinc's ``LSTM``: Thinc 8.3's generic
LSTM kernels, the ones CupyOps runs, carry the state of a batch's first
sequence only and give its weights no gradient, so Thinc's LSTM trains on
a CPU (NumpyOps' own kernel) but not on a GPU.
"""
from __future__ import annotations

from typing import Callable, List, Tuple

from spacy.ml.models.tok2vec import MaxoutWindowEncoder
from spacy.util import registry
from thinc.api import LayerNorm, Model, chain, concatenate, glorot_uniform_init, residual, to_numpy, with_array
from thinc.types import Floats2d, Padded

from ..errors import Errors, UserError


@registry.architectures("spacy-planar.BiLSTMEncoder.v1")
def build_bilstm_encoder(width: int, depth: int = 1, dropout: float = 0.1, cnn_depth: int = 2,
                         window_size: int = 1, maxout_pieces: int = 3) -> Model[List[Floats2d], List[Floats2d]]:
    """List of [words, width] -> list of [words, width]: ``cnn_depth``
    window-CNN layers (none with 0), then ``x + BiLSTM(x)`` (``depth``
    layers, ``width // 2`` units each way), layer-normalised."""
    if width % 2:
        raise UserError(Errors.E128.format(width=width))
    layers = [bidirectional(width, width, dropout) for _ in range(depth)]
    encoder: Model = chain(residual(chain(*layers) if depth > 1 else layers[0]), with_array(LayerNorm(nI=width)))
    if cnn_depth:
        cnn = MaxoutWindowEncoder(width=width, window_size=window_size, maxout_pieces=maxout_pieces, depth=cnn_depth)
        encoder = chain(cnn, encoder)
    encoder.set_dim("nO", width)
    encoder.name = "bilstm_encoder"
    return encoder


def bidirectional(nO: int, nI: int, dropout: float) -> Model[List[Floats2d], List[Floats2d]]:
    """One BiLSTM layer: an LSTM left to right and one over each sequence
    reversed, ``nO // 2`` units each, concatenated."""
    return concatenate(lstm(nO // 2, nI, dropout), reversed_sequences(lstm(nO // 2, nI, dropout)))


def reversed_sequences(layer: Model[List[Floats2d], List[Floats2d]]) -> Model[List[Floats2d], List[Floats2d]]:
    """``layer`` over each sequence reversed, its outputs turned back."""

    def flip(ops, Xs: List[Floats2d]) -> List[Floats2d]:
        return [ops.xp.ascontiguousarray(X[::-1]) for X in Xs]

    def forward(model: Model, Xs: List[Floats2d], is_train: bool) -> Tuple[List[Floats2d], Callable]:
        Ys, backprop_layer = model.layers[0](flip(model.ops, Xs), is_train)
        return flip(model.ops, Ys), lambda dYs: flip(model.ops, backprop_layer(flip(model.ops, dYs)))

    return Model(f"reversed({layer.name})", forward, layers=[layer], dims={"nO": layer.get_dim("nO")},
                 init=lambda model, X=None, Y=None: model.layers[0].initialize())


def lstm(nO: int, nI: int, dropout: float) -> Model[List[Floats2d], List[Floats2d]]:
    """A left-to-right LSTM, [words, nI] -> [words, nO] per sequence:
    gates i, f, o and the candidate z from ``W x + U h + b`` (the forget
    gate's bias starts at 1), ``c = f c' + i z``, ``h = o tanh(c)``, from
    zero states; DropConnect ``dropout`` on W and U while training."""
    return Model("lstm", lstm_forward, dims={"nO": nO, "nI": nI}, attrs={"dropout_rate": dropout},
                 params={"W": None, "U": None, "b": None}, init=lstm_init)


def lstm_init(model: Model, X=None, Y=None) -> None:
    nO, nI = model.get_dim("nO"), model.get_dim("nI")
    model.set_param("W", glorot_uniform_init(model.ops, (4 * nO, nI)))
    model.set_param("U", glorot_uniform_init(model.ops, (4 * nO, nO)))
    b = model.ops.alloc1f(4 * nO)
    b[nO:2 * nO] = 1.0
    model.set_param("b", b)


def lstm_forward(model: Model, Xs: List[Floats2d], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    """The batch padded time-major (longest sequence first, so the
    sequences still running at step t are the first ``size_at_t[t]``), the
    input projection in one gemm, then a step per time step. (Over 60
    lines: the backward pass is a closure over the forward's saved gates
    and cells, step for step its mirror.)"""
    ops, xp = model.ops, model.ops.xp
    nO, nI = model.get_dim("nO"), model.get_dim("nI")
    if not sum(len(X) for X in Xs):
        return [ops.alloc2f(0, nO) for _ in Xs], lambda dYs: [ops.alloc2f(0, nI) for _ in Xs]
    W, U, b = (model.get_param(name) for name in ("W", "U", "b"))
    rate = model.attrs["dropout_rate"] if is_train else 0.0
    masks = [ops.get_dropout_mask(P.shape, rate) for P in (W, U)] if rate else None
    if masks is not None:
        W, U = W * masks[0], U * masks[1]
    Xp = ops.list2padded(Xs)
    sizes = [int(n) for n in to_numpy(Xp.size_at_t)]
    T, B = len(sizes), Xp.data.shape[1]
    X = Xp.data.reshape((T * B, nI))
    G = (ops.gemm(X, W, trans2=True) + b).reshape((T, B, 4 * nO))
    Y = ops.alloc3f(T, B, nO)
    C = ops.alloc3f(T + 1, B, nO)  # C[t + 1]: the cells after step t; C[0] zeros
    H = ops.alloc3f(T + 1, B, nO)
    gates = []
    for t, n in enumerate(sizes):
        g = G[t, :n] + ops.gemm(H[t, :n], U, trans2=True)
        i, f, o = (ops.sigmoid(g[:, k * nO:(k + 1) * nO]) for k in range(3))
        z = xp.tanh(g[:, 3 * nO:])
        C[t + 1, :n] = f * C[t, :n] + i * z
        tanh_c = xp.tanh(C[t + 1, :n])
        H[t + 1, :n] = o * tanh_c
        gates.append((i, f, o, z, tanh_c))
    Y[:] = H[1:]

    def backprop(dYs: List[Floats2d]) -> List[Floats2d]:
        dY = ops.list2padded(dYs).data
        dG = ops.alloc3f(T, B, 4 * nO)
        dH = ops.alloc2f(B, nO)  # from step t + 1 into h_t; rows of ended sequences stay 0
        dC = ops.alloc2f(B, nO)
        dU = ops.alloc2f(4 * nO, nO)
        for t in reversed(range(T)):
            n = sizes[t]
            i, f, o, z, tanh_c = gates[t]
            dh = dY[t, :n] + dH[:n]
            dc = dC[:n] + dh * o * (1 - tanh_c ** 2)
            dg = dG[t, :n]
            dg[:, :nO] = dc * z * i * (1 - i)
            dg[:, nO:2 * nO] = dc * C[t, :n] * f * (1 - f)
            dg[:, 2 * nO:3 * nO] = dh * tanh_c * o * (1 - o)
            dg[:, 3 * nO:] = dc * i * (1 - z ** 2)
            dU += ops.gemm(dg, H[t, :n], trans1=True)
            dH[:n] = ops.gemm(dg, U)
            dC[:n] = dc * f
        dG2 = dG.reshape((T * B, 4 * nO))
        dW = ops.gemm(dG2, X, trans1=True)
        if masks is not None:
            dW, dU = dW * masks[0], dU * masks[1]
        model.inc_grad("W", dW)
        model.inc_grad("U", dU)
        model.inc_grad("b", dG2.sum(axis=0))
        return ops.padded2list(Padded(ops.gemm(dG2, W).reshape((T, B, nI)), Xp.size_at_t, Xp.lengths, Xp.indices))

    return ops.padded2list(Padded(Y, Xp.size_at_t, Xp.lengths, Xp.indices)), backprop
