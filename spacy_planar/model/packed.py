"""What the BiLSTM encoder's two LSTM backends share (``bilstm.py``, ``torch_lstm.py``): the
batch's packed order and the name of the LSTMs' DropConnect rate."""
from __future__ import annotations

from typing import List, Tuple

import numpy
from thinc.types import Ints1d

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
