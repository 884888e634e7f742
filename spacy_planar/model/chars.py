"""``spacy-planar.CharEmbed.v1``: a word's characters, read by a small CNN.

For inflected languages with many unseen word forms, as UDPipe 2 and Stanza
read each word's characters: every character of the word (its first
``max_chars``) is embedded (a hashed table of its code point), a window of
three characters goes through a maxout layer, and the word's vector is the
maximum over its positions (Santos & Zadrozny 2014's character CNN). The
vectors are concatenated with those of another embedding (spaCy's
``MultiHashEmbed``: NORM, PREFIX, SUFFIX, SHAPE) and mixed to ``width`` by a
maxout layer, so that it stands wherever a tok2vec's ``embed`` does.
spaCy's ``CharacterEmbed`` (the first and last bytes, each in its slot) is
not this: it sees no character in context.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy
from spacy.attrs import ORTH
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import (HashEmbed, Maxout, Model, chain, concatenate, expand_window, reduce_max, with_array)
from thinc.types import Floats2d, Ragged


@registry.architectures("spacy-planar.CharEmbed.v1")
def build_char_embed(embed: Model[List[Doc], List[Floats2d]], width: int, char_width: int = 32,
                     cnn_width: int = 64, max_chars: int = 20, rows: int = 2000,
                     ) -> Model[List[Doc], List[Floats2d]]:
    """``embed``'s vectors concatenated with each word's character CNN
    vector (``char_width``-wide character embeddings of ``rows`` hashed
    rows, windows of three through a ``cnn_width`` maxout, the maximum
    over the word's first ``max_chars`` characters), mixed to ``width`` by
    a layer-normalised maxout."""
    cnn = chain(with_array(HashEmbed(nO=char_width, nV=rows, column=0, seed=31)), expand_window(window_size=1),
                with_array(Maxout(nO=cnn_width, nP=2, normalize=True)), reduce_max())
    chars = Model("char_cnn", _chars_forward, init=_chars_init, layers=[cnn], dims={"nO": cnn_width},
                  attrs={"max_chars": max_chars, "codes": {}})
    mix = with_array(Maxout(nO=width, nP=3, normalize=True, dropout=0.0))
    return chain(concatenate(embed, chars), mix)


def _chars_init(model: Model, X=None, Y=None) -> Model:
    model.layers[0].initialize(X=_char_codes(model, X) if X else None)
    return model


def _chars_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    """Per Doc [words, cnn_width]: the CNN over the characters of the whole
    batch's words at once."""
    ops = model.ops
    vectors, bp_cnn = model.layers[0](_char_codes(model, docs), is_train)
    lengths = [len(doc) for doc in docs]

    def backprop(d_out: List[Floats2d]) -> List:
        bp_cnn(ops.flatten(d_out, ndim_if_empty=2))
        return []

    return ops.unflatten(vectors, lengths), backprop


def _char_codes(model: Model, docs: List[Doc]) -> Ragged:
    """The code points of the batch's words (their first ``max_chars``
    characters; one, 0, for a word without any): [characters, 1] uint64, a
    length per word. The codes of each word form are worked out once."""
    cache: Dict[int, numpy.ndarray] = model.attrs["codes"]
    n = model.attrs["max_chars"]
    codes, lengths = [numpy.zeros((0,), dtype=numpy.uint64)], [numpy.zeros((0,), dtype=numpy.int32)]
    for doc in docs:
        orths = doc.to_array([ORTH]).reshape(-1)
        uniq, inverse = numpy.unique(orths, return_inverse=True)
        for key in uniq.tolist():
            if key not in cache:
                text = doc.vocab.strings[key][:n] or "\0"
                cache[key] = numpy.frombuffer(text.encode("utf-32-le"), dtype=numpy.uint32).astype(numpy.uint64)
        per = numpy.asarray([len(cache[k]) for k in uniq.tolist()], dtype=numpy.int32)
        table = numpy.zeros((len(uniq), int(per.max(initial=1))), dtype=numpy.uint64)
        for u, key in enumerate(uniq.tolist()):
            table[u, :per[u]] = cache[key]
        inverse = inverse.reshape(-1)
        present = numpy.arange(table.shape[1])[None, :] < per[inverse][:, None]
        codes.append(table[inverse][present])
        lengths.append(per[inverse])
    return Ragged(model.ops.asarray(numpy.concatenate(codes).reshape((-1, 1))),
                  model.ops.asarray1i(numpy.concatenate(lengths)))
