"""What the word encoders that read a variable number of keys per word
share (``CharEmbed.v3``: a word's characters; ``WithMorphology.v1``: its
UPOS, XPOS and FEATS pairs): the keys of a word form built once and cached
(``cached_rows``), and a layer over the batch's words at once whose output
is split back per Doc (``per_word_layer``). The caches live in the layer's
closure, not in its attrs: they are derived from the vocab, and a saved
model does not carry them.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy
from spacy.tokens import Doc
from thinc.api import Model, Ops
from thinc.types import Floats2d, Ragged

# (Docs, is_train, ops) -> a Ragged of the batch's words' keys, a length per word
Inputs = Callable[[List[Doc], bool, Ops], Ragged]


def cached_rows(keys: numpy.ndarray, cache: Dict[int, numpy.ndarray], compute: Callable[[int], numpy.ndarray],
                lead: int = 0) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """For ``keys`` [words]: rows [words, lead + longest] (uint64) holding,
    after ``lead`` columns left for the caller, the array of each word's key
    (``cache[key]``, ``compute(key)`` the first time), and the mask [words,
    lead + longest] of the columns each word uses (its lead ones included).
    ``rows[mask]`` are the keys word after word, ``mask.sum(1)`` their
    counts."""
    uniq, inverse = numpy.unique(keys, return_inverse=True)
    for key in uniq.tolist():
        if key not in cache:
            cache[key] = compute(key)
    counts = numpy.asarray([len(cache[k]) for k in uniq.tolist()], dtype=numpy.int32)
    table = numpy.zeros((len(uniq), lead + int(counts.max(initial=0))), dtype=numpy.uint64)
    for u, key in enumerate(uniq.tolist()):
        table[u, lead:lead + counts[u]] = cache[key]
    inverse = inverse.reshape(-1)
    present = numpy.arange(table.shape[1])[None, :] < (lead + counts[inverse])[:, None]
    return table[inverse], present


def ragged_keys(rows: numpy.ndarray, present: numpy.ndarray, ops: Ops) -> Ragged:
    """``cached_rows``' keys as the Ragged a layer reads: [keys, 1], a length per word."""
    return Ragged(ops.asarray(rows[present].reshape((-1, 1))), ops.asarray1i(present.sum(axis=1)))


def per_word_layer(name: str, inputs: Inputs, layer: Model, width: int, summed: bool = False
                   ) -> Model[List[Doc], List[Floats2d]]:
    """Docs -> per Doc [words, width]: ``layer`` over ``inputs`` (the keys
    of the whole batch's words at once), its rows split back per Doc. The
    layer takes the Ragged and gives a row per word, or (``summed``) takes
    the keys [keys, 1] and gives a row per key, which are summed per word.
    No gradient reaches the Docs."""

    def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
        ops = model.ops
        keys = inputs(docs, is_train, ops)
        vectors, bp_layer = model.layers[0](keys.dataXd if summed else keys, is_train)
        if summed:
            vectors = ops.reduce_sum(vectors, keys.lengths)

        def backprop(d_out: List[Floats2d]) -> List:
            d_vectors = ops.flatten(d_out, ndim_if_empty=2)
            bp_layer(ops.backprop_reduce_sum(d_vectors, keys.lengths) if summed else d_vectors)
            return []

        return ops.unflatten(vectors, [len(doc) for doc in docs]), backprop

    def init(model: Model, X=None, Y=None) -> Model:
        keys = inputs(X, False, model.ops) if X else None
        model.layers[0].initialize(X=(keys.dataXd if summed else keys) if keys is not None else None)
        return model

    return Model(name, forward, init=init, layers=[layer], dims={"nO": width})


def doc_arrays(docs: List[Doc], attrs: List[str], dtype=numpy.uint64) -> numpy.ndarray:
    """The batch's words' ``attrs`` (``Doc.to_array``), one row per word."""
    return numpy.concatenate([numpy.zeros((0, len(attrs)), dtype=dtype)]
                             + [doc.to_array(attrs).astype(dtype).reshape((-1, len(attrs))) for doc in docs])
