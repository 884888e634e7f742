"""The BiLSTM encoder's LSTM on PyTorch's fused kernel (``BiLSTMEncoder.v1``'s ``backend =
"torch"``): the same model as ``bilstm.lstm`` (its weights W, U, b, its gates, DropConnect, zero
initial states), each layer's forward and backward one call of ``torch.lstm`` over the batch in
packed order (``packed.packed_order`` is PyTorch's PackedSequence order) instead of a step of
Thinc ops per time step: on a GPU the per-step launches are what the Thinc-ops layer pays for.
The weights stay Thinc parameters (saved, averaged and optimized as the Thinc-ops layer's, so a
pipeline trained with one backend loads and parses with the other); PyTorch only sees them
during a forward pass, in its gate order (i, f, g, o against ours: i, f, o, z). Needs PyTorch
(``pip install 'spacy-planar[torch]'``), never a plain install's dependency; tests/test_encoders.py
holds both backends' outputs and gradients equal for the same weights."""
from __future__ import annotations

from typing import Callable, List, Tuple

import numpy
from thinc.api import Model
from thinc.types import Floats2d

from spacy_planar.errors import Errors, UserError
from spacy_planar.model.packed import empty_batch, lstm_weights, packed_order


def torch_gate_order(xp, nO: int):
    """Rows of our (i, f, o, z) gate blocks in PyTorch's order (i, f, g = z, o)."""
    return xp.concatenate([xp.arange(0, 2 * nO), xp.arange(3 * nO, 4 * nO), xp.arange(2 * nO, 3 * nO)])


def _torch():
    try:
        import torch
    except ImportError:
        raise UserError(Errors.E165) from None
    return torch


def torch_lstm_forward(model: Model, Xs: List[Floats2d], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    """``bilstm.lstm_forward``'s contract on ``torch.lstm``: the packed batch in, one call, the
    outputs back in the batch's order; the backward pass is PyTorch's autograd, its gradients of
    the gate-reordered weights put back in our order (and masked as DropConnect masked them)."""
    from thinc.util import torch2xp, xp2torch

    torch = _torch()
    ops, xp = model.ops, model.ops.xp
    nO, nI = model.get_dim("nO"), model.get_dim("nI")
    lengths = [len(X) for X in Xs]
    if not sum(lengths):
        return empty_batch(model, Xs)
    W, U, b, masks = lstm_weights(model, is_train)
    sizes, order, _previous = packed_order(xp, numpy.asarray(lengths), model.attrs.get("reverse", False))
    rows = torch_gate_order(xp, nO)
    weights = [xp2torch(xp.ascontiguousarray(P[rows]), requires_grad=is_train) for P in (W, U, b)]
    X = xp2torch(xp.ascontiguousarray(ops.flatten(Xs)[order]), requires_grad=is_train)
    zeros = torch.zeros((1, sizes[0], nO), dtype=X.dtype, device=X.device)
    params = [*weights, torch.zeros_like(weights[2])]  # W, U, b and PyTorch's second bias, held at 0
    with torch.set_grad_enabled(is_train):
        H, _h, _c = torch.lstm(X, torch.tensor(sizes, dtype=torch.int64), (zeros, zeros), params,
                               True, 1, 0.0, is_train, False)
    Y = ops.alloc2f(len(order), nO)
    Y[order] = torch2xp(H.detach())

    def backprop(dYs: List[Floats2d]) -> List[Floats2d]:
        dH = xp.ascontiguousarray(ops.flatten(dYs)[order])
        torch.autograd.backward(H, xp2torch(dH))
        for name, P, mask in zip(("W", "U", "b"), weights, [*(masks or [None, None]), None]):
            grad = ops.alloc(P.shape, dtype="float32")
            grad[rows] = torch2xp(P.grad)
            model.inc_grad(name, grad * mask if mask is not None else grad)
        dX = ops.alloc2f(len(order), nI)
        dX[order] = torch2xp(X.grad)
        return ops.unflatten(dX, lengths)

    return ops.unflatten(Y, lengths), backprop
