"""What the BiLSTM encoder's two LSTM backends share (``bilstm.py``, ``torch_lstm.py``): the
batch's packed order and the name of the LSTMs' DropConnect rate."""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

import numpy
from thinc.api import Model
from thinc.types import Floats2d, Ints1d

# the LSTMs' DropConnect rate, under a name of its own: spaCy's ``set_dropout_rate`` sets ``dropout_rate``
DROP_CONNECT = "drop_connect"


def packed_order(xp, lengths: numpy.ndarray, reverse: bool) -> Tuple[List[int], Ints1d, Ints1d]:
    """The batch's words in time-major packed order (PyTorch's
    PackedSequence): step t holds the ``sizes[t]`` sequences longer than t,
    longest first, so a step's rows are contiguous and the sequences still
    running at step t + 1 are the first of step t's. Returns the sizes,
    ``order`` (packed row -> row of the flattened batch; with ``reverse``
    step t is each sequence's t-th word from its end) and ``previous``
    (each packed row of step t > 0 -> the packed row of the same sequence
    at step t - 1)."""
    lengths = numpy.asarray(lengths, dtype="int64")
    rank = numpy.empty(len(lengths), dtype="int64")
    rank[numpy.argsort(-lengths, kind="stable")] = numpy.arange(len(lengths))
    seq = numpy.repeat(numpy.arange(len(lengths)), lengths)
    starts = numpy.cumsum(lengths) - lengths
    step = numpy.arange(len(seq)) - starts[seq]
    if reverse:
        step = lengths[seq] - 1 - step
    packed = numpy.argsort(step * len(lengths) + rank[seq], kind="stable")  # packed row -> flat row
    sizes = numpy.bincount(step, minlength=int(lengths.max(initial=0))).tolist()
    offsets = numpy.cumsum([0] + sizes)
    previous = numpy.concatenate([offsets[t - 1] + numpy.arange(n) for t, n in enumerate(sizes) if t]
                                 or [numpy.zeros(0, dtype="int64")])
    return sizes, xp.asarray(packed), xp.asarray(previous)


def empty_batch(model: Model, Xs: List[Floats2d]) -> Tuple[List[Floats2d], Callable]:
    """An LSTM's output for a batch without a word, and its backward pass."""
    ops, nO, nI = model.ops, model.get_dim("nO"), model.get_dim("nI")
    return [ops.alloc2f(0, nO) for _ in Xs], lambda dYs: [ops.alloc2f(0, nI) for _ in Xs]


def lstm_weights(model: Model, is_train: bool) -> Tuple[Floats2d, Floats2d, Floats2d, Optional[List[Floats2d]]]:
    """An LSTM's W, U and b, W and U under DropConnect's masks while training, and the masks (None
    where none: not training, or a rate of 0), which the gradients of W and U are masked by."""
    W, U, b = (model.get_param(name) for name in ("W", "U", "b"))
    rate = model.attrs[DROP_CONNECT] if is_train else 0.0
    masks = [model.ops.get_dropout_mask(P.shape, rate) for P in (W, U)] if rate else None
    if masks is not None:
        W, U = W * masks[0], U * masks[1]
    return W, U, b, masks
