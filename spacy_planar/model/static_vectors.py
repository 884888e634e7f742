"""A pipeline's static vectors (``[initialize] vectors``, floret or a table)
as one input of ``spacy-planar.CharEmbed.v3``, learned from raw text
(``spacy-planar vectors``).

As spaCy's ``StaticVectors``, each word's vector goes through a learned
linear map to ``width``; unlike it, the word is looked up by its Unicode NFC
form (``raw_text.nfc``, the form the vectors were trained on), and each word
form's vector is worked out once and cached: floret's ``get_batch`` hashes
every n-gram of every word of every batch again. The cache lives in the
layer's closure (derived from the vocab, never saved) and is emptied when it
grows past ``CACHE_LIMIT`` forms, so a corpus of millions of words parses in
bounded memory.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy
from spacy.strings import get_string_id
from spacy.tokens import Doc
from thinc.api import Model, glorot_uniform_init
from thinc.types import Floats2d
from thinc.util import to_numpy

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.raw_text import nfc
from spacy_planar.model.per_word import CACHE_LIMIT, doc_arrays


def has_vectors(vocab) -> bool:
    """Whether ``vocab`` holds static vectors to read."""
    vectors = vocab.vectors
    return vectors.shape[0] > 0 and vectors.shape[1] > 0 and (vectors.mode == "floret" or len(vectors.key2row) > 0)


def word_vectors(vocab, keys: List[int]) -> numpy.ndarray:
    """The vectors [len(keys), nM] of the word forms ``keys`` (ORTH ids),
    each looked up by its NFC form; a form without a vector in a table
    (not floret) gets zeros."""
    vectors = vocab.vectors
    texts = [nfc(vocab.strings[key]) for key in keys]
    if vectors.mode == "floret":
        return numpy.asarray(to_numpy(vectors.get_batch(texts)), dtype="float32")
    ids = [get_string_id(text) for text in texts]
    rows = numpy.asarray([vectors.key2row.get(i, -1) for i in ids], dtype="int64")
    out = numpy.asarray(to_numpy(vectors.data), dtype="float32")[numpy.maximum(rows, 0)]
    out[rows < 0] = 0
    return out


def build_static_vectors(width: int, source: str) -> Model[List[Doc], List[Floats2d]]:
    """Docs -> per Doc [words, ``width``]: each word's static vector times a
    learned [width, nM] matrix. ``source`` (the ``[initialize] vectors`` it
    expects, for the message) must have left vectors in the vocab by the
    time the layer is initialized (E111)."""
    cache: Dict[int, numpy.ndarray] = {}

    def lookup(docs: List[Doc]) -> numpy.ndarray:
        vocab = docs[0].vocab
        keys = doc_arrays(docs, ["ORTH"])[:, 0]
        uniq, inverse = numpy.unique(keys, return_inverse=True)
        if len(cache) + len(uniq) > CACHE_LIMIT:
            cache.clear()
        new = [k for k in uniq.tolist() if k not in cache]
        if new:
            cache.update(zip(new, word_vectors(vocab, new)))
        width_in = vocab.vectors.shape[1]
        table = numpy.stack([cache[k] for k in uniq.tolist()]) if len(uniq) else numpy.zeros((0, width_in), "f")
        return table[inverse.reshape(-1)]

    def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
        ops = model.ops
        W = model.get_param("W")
        lengths = [len(doc) for doc in docs]
        if sum(lengths) == 0:
            return [ops.alloc2f(0, width) for _ in docs], lambda d: []
        V = ops.asarray2f(lookup(docs))
        Y = ops.gemm(V, W, trans2=True)

        def backprop(dYs: List[Floats2d]) -> List:
            model.inc_grad("W", ops.gemm(ops.flatten(dYs), V, trans1=True))
            return []

        return ops.unflatten(Y, lengths), backprop

    def init(model: Model, X=None, Y=None) -> Model:
        if X is not None and len(X):
            vocab = X[0].vocab
            if not has_vectors(vocab):
                raise UserError(Errors.E111.format(path=source))
            model.set_dim("nM", vocab.vectors.shape[1])
        cache.clear()
        model.set_param("W", glorot_uniform_init(model.ops, (width, model.get_dim("nM"))))
        return model

    return Model("static_vectors", forward, init=init, params={"W": None}, dims={"nO": width, "nM": None})
