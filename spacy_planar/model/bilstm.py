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

import numpy
from spacy.ml.models.tok2vec import MaxoutWindowEncoder
from spacy.util import registry
from thinc.api import (
    LayerNorm,
    Model,
    NumpyOps,
    chain,
    concatenate,
    get_array_module,
    glorot_uniform_init,
    residual,
    with_array,
)
from thinc.types import Floats2d

from spacy_planar.errors import Errors, UserError
from spacy_planar.model import _lstm
from spacy_planar.model.packed import DROP_CONNECT, empty_batch, lstm_weights, packed_order
from spacy_planar.model.torch_lstm import torch_lstm_forward


# On the CPU a step's gates run in ``_lstm``'s C loop up to this many cells (sequences x units) forward,
# and backward, and above it as numpy's vectorised ufuncs (``step_forward``, ``step_backward``), which
# cost more to call and less per cell: the crossovers measured on 1-128 sequences of 32-200 units, one
# thread (docs/decisions.md, 2026-12-04). Parsing a batch of 1,000 Docs is mostly numpy's; training, C's.
C_CELLS_FORWARD, C_CELLS_BACKWARD = 1024, 8192

BACKENDS = ("thinc", "torch")  # what runs the LSTM: this module's Thinc ops, or torch_lstm.py



@registry.architectures("spacy-planar.BiLSTMEncoder.v1")
def build_bilstm_encoder(width: int, depth: int = 1, dropout: float = 0.1, cnn_depth: int = 2,
                         window_size: int = 1, maxout_pieces: int = 3,
                         backend: str = "thinc") -> Model[List[Floats2d], List[Floats2d]]:
    """List of [words, width] -> list of [words, width]: ``cnn_depth``
    window-CNN layers (none with 0), then ``x + BiLSTM(x)`` (``depth``
    layers, ``width // 2`` units each way), layer-normalised.

    ``dropout``: the LSTMs' DropConnect rate while training, as given (the
    shipped configs give ``${training.dropout}``). It is kept apart from
    the ``dropout_rate`` that spaCy's components set on every layer at each
    update, which once overwrote it without a word (docs/decisions.md,
    2026-11-27); the window CNN's layers, spaCy's own, still take that.

    ``backend``: "thinc" (this module's LSTM, a step of Thinc ops per time step) or "torch"
    (``torch_lstm.py``: PyTorch's fused kernel over the same weights, for a GPU; needs the
    ``[torch]`` extra). Saved weights are the same either way."""
    if width % 2:
        raise UserError(Errors.E128.format(width=width))
    if backend not in BACKENDS:
        raise UserError(Errors.E166.format(backend=backend))
    layers = [bidirectional(width, width, dropout, backend) for _ in range(depth)]
    encoder: Model = chain(residual(chain(*layers) if depth > 1 else layers[0]), with_array(LayerNorm(nI=width)))
    if cnn_depth:
        cnn = MaxoutWindowEncoder(width=width, window_size=window_size, maxout_pieces=maxout_pieces, depth=cnn_depth)
        encoder = chain(cnn, encoder)
    encoder.set_dim("nO", width)
    encoder.name = "bilstm_encoder"
    return encoder


def bidirectional(nO: int, nI: int, dropout: float, backend: str = "thinc") -> Model[List[Floats2d], List[Floats2d]]:
    """One BiLSTM layer: an LSTM left to right and one right to left,
    ``nO // 2`` units each, concatenated."""
    return concatenate(lstm(nO // 2, nI, dropout, backend=backend),
                       reversed_sequences(lstm(nO // 2, nI, dropout, reverse=True, backend=backend)))


def reversed_sequences(layer: Model[List[Floats2d], List[Floats2d]]) -> Model[List[Floats2d], List[Floats2d]]:
    """The right-to-left LSTM under the node name saved pipelines have
    (``reversed(lstm)``); the LSTM reads each sequence backwards itself,
    so this node passes its input and output as they are."""

    def forward(model: Model, Xs: List[Floats2d], is_train: bool) -> Tuple[List[Floats2d], Callable]:
        return model.layers[0](Xs, is_train)

    return Model(f"reversed({layer.name})", forward, layers=[layer], dims={"nO": layer.get_dim("nO")},
                 init=lambda model, X=None, Y=None: model.layers[0].initialize())


def lstm(nO: int, nI: int, dropout: float, reverse: bool = False,
         backend: str = "thinc") -> Model[List[Floats2d], List[Floats2d]]:
    """An LSTM, [words, nI] -> [words, nO] per sequence, left to right (or
    right to left with ``reverse``): gates i, f, o and the candidate z from
    ``W x + U h + b`` (the forget gate's bias starts at 1), ``c = f c' + i
    z``, ``h = o tanh(c)``, from zero states; DropConnect ``dropout`` on W
    and U while training; ``backend`` as ``build_bilstm_encoder``'s."""
    return Model("lstm", lstm_forward, dims={"nO": nO, "nI": nI},
                 attrs={DROP_CONNECT: dropout, "reverse": reverse, "backend": backend},
                 params={"W": None, "U": None, "b": None}, init=lstm_init)


def lstm_init(model: Model, X=None, Y=None) -> None:
    nO, nI = model.get_dim("nO"), model.get_dim("nI")
    model.set_param("W", glorot_uniform_init(model.ops, (4 * nO, nI)))
    model.set_param("U", glorot_uniform_init(model.ops, (4 * nO, nO)))
    b = model.ops.alloc1f(4 * nO)
    b[nO:2 * nO] = 1.0
    model.set_param("b", b)


def lstm_forward(model: Model, Xs: List[Floats2d], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    """The batch in packed order (no padding), every word's input projection in one product, then
    a step per time step: U's product, then the gates (``_lstm``'s C loop on NumpyOps for a step of
    at most ``C_CELLS_FORWARD`` cells, ``step_forward`` elsewhere). The backward pass steps back
    through the saved activations and cells; W's, U's and the inputs' gradients are one product
    each over the batch. The "torch" backend: ``torch_lstm.torch_lstm_forward``."""
    if model.attrs.get("backend") == "torch":
        return torch_lstm_forward(model, Xs, is_train)
    ops, xp = model.ops, model.ops.xp
    nO, nI = model.get_dim("nO"), model.get_dim("nI")
    lengths = [len(X) for X in Xs]
    if not sum(lengths):
        return empty_batch(model, Xs)
    W, U, b, masks = lstm_weights(model, is_train)
    # the C loop's steps: those of few cells on the CPU (C_CELLS_FORWARD, C_CELLS_BACKWARD), none on a GPU
    c_forward, c_backward = (C_CELLS_FORWARD // nO, C_CELLS_BACKWARD // nO) if isinstance(ops, NumpyOps) else (0, 0)
    sizes, order, previous = packed_order(xp, numpy.asarray(lengths), model.attrs.get("reverse", False))
    offsets = numpy.cumsum([0] + sizes).tolist()
    X = ops.flatten(Xs)[order]
    # the products by the array module (numpy's BLAS on the CPU: about 3x blis's speed here, docs/decisions.md)
    G = X @ W.T + b  # per word: W x + b, then (in place) the gates' activations
    C = ops.alloc2f(len(X), nO)
    H = ops.alloc2f(len(X), nO)
    zeros = ops.alloc2f(sizes[0], nO)
    U_T = xp.ascontiguousarray(U.T)
    for t, n in enumerate(sizes):
        at, before = slice(offsets[t], offsets[t] + n), slice(offsets[t - 1], offsets[t - 1] + n) if t else None
        h_prev, c_prev = (H[before], C[before]) if t else (zeros[:n], zeros[:n])
        (_lstm.gates_forward if n <= c_forward else step_forward)(G[at], h_prev @ U_T, c_prev, C[at], H[at])

    def backprop(dYs: List[Floats2d]) -> List[Floats2d]:
        dY = ops.flatten(dYs)[order]
        dG = ops.alloc2f(len(X), 4 * nO)
        dH = ops.alloc2f(sizes[0], nO)  # from step t + 1 into h_t; rows of ended sequences stay 0
        dC = ops.alloc2f(sizes[0], nO)
        for t in reversed(range(len(sizes))):
            n = sizes[t]
            at = slice(offsets[t], offsets[t] + n)
            c_prev = C[offsets[t - 1]:offsets[t - 1] + n] if t else zeros[:n]
            (_lstm.gates_backward if n <= c_backward else step_backward)(G[at], c_prev, C[at], dY[at], dH[:n],
                                                                         dC[:n], dG[at])
            dH[:n] = dG[at] @ U
        dW = dG.T @ X
        dU = dG[sizes[0]:].T @ H[previous]
        if masks is not None:
            dW, dU = dW * masks[0], dU * masks[1]
        model.inc_grad("W", dW)
        model.inc_grad("U", dU)
        model.inc_grad("b", dG.sum(axis=0))
        dX = ops.alloc2f(len(X), nI)
        dX[order] = dG @ W
        return ops.unflatten(dX, lengths)

    Y = ops.alloc2f(len(X), nO)
    Y[order] = H
    return ops.unflatten(Y, lengths), backprop


def step_forward(g: Floats2d, r: Floats2d, c_prev: Floats2d, c: Floats2d, h: Floats2d) -> None:
    """``_lstm.gates_forward`` on the array module (CupyOps): ``g`` becomes
    the gates' activations, ``c`` and ``h`` are written."""
    xp = get_array_module(g)
    nO = c.shape[1]
    g += r
    g[:, :3 * nO] = 1.0 / (1.0 + xp.exp(-g[:, :3 * nO]))
    g[:, 3 * nO:] = xp.tanh(g[:, 3 * nO:])
    i, f, o, z = (g[:, k * nO:(k + 1) * nO] for k in range(4))
    c[:] = f * c_prev + i * z
    h[:] = o * xp.tanh(c)


def step_backward(acts: Floats2d, c_prev: Floats2d, c: Floats2d, dy: Floats2d, dh: Floats2d, dc: Floats2d,
                  dg: Floats2d) -> None:
    """``_lstm.gates_backward`` on the array module: ``dg`` is written,
    ``dc`` becomes the gradient into the previous cells."""
    xp = get_array_module(acts)
    nO = c.shape[1]
    i, f, o, z = (acts[:, k * nO:(k + 1) * nO] for k in range(4))
    tanh_c = xp.tanh(c)
    dhv = dy + dh
    dcv = dc + dhv * o * (1 - tanh_c ** 2)
    dg[:, :nO] = dcv * z * i * (1 - i)
    dg[:, nO:2 * nO] = dcv * c_prev * f * (1 - f)
    dg[:, 2 * nO:3 * nO] = dhv * tanh_c * o * (1 - o)
    dg[:, 3 * nO:] = dcv * i * (1 - z ** 2)
    dc[:] = dcv * f
