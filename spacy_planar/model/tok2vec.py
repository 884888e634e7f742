"""``spacy-planar.Tok2Vec.v1``: spaCy's ``Tok2Vec.v2`` (an embedding, then
an encoder), the encoder run over each sentence apart.

A Doc of several sentences (a paragraph of raw text split by the ``senter``,
a run of a treebank's sentences from ``spacy-planar.Corpus.v1``) is encoded
sentence by sentence, so that a word's vector depends on its sentence only,
as when the treebank's sentences are parsed one Doc each: a BiLSTM trained on
single sentences reads no neighbour it never saw in training. A Doc without
sentence starts is one sentence.
"""
from __future__ import annotations

from itertools import accumulate
from typing import Callable, List, Tuple

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d


@registry.architectures("spacy-planar.Tok2Vec.v1")
def build_tok2vec(embed: Model[List[Doc], List[Floats2d]], encode: Model[List[Floats2d], List[Floats2d]]
                  ) -> Model[List[Doc], List[Floats2d]]:
    """Docs -> per Doc [words, width]: ``embed`` over the Docs, then
    ``encode`` over each sentence (``sentence_lengths``)."""
    model = Model("tok2vec", forward, layers=[embed, encode], dims={"nO": encode.maybe_get_dim("nO")}, init=init)
    model.set_ref("embed", embed)  # as spaCy's Tok2Vec.v2 names its parts
    model.set_ref("encode", encode)
    return model


def sentence_lengths(doc: Doc) -> List[int]:
    """The lengths of a Doc's sentences where it has sentence starts, else its own."""
    if len(doc) and doc.has_annotation("SENT_START"):
        return [len(sent) for sent in doc.sents]
    return [len(doc)]


def starts(lengths: List[int]) -> List[int]:
    """Where each sentence after the first starts: host integers, as
    ``xp.split`` takes them on numpy and on cupy alike."""
    return list(accumulate(lengths))[:-1]


def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    embed, encode = model.layers
    Xs, backprop_embed = embed(docs, is_train)
    lengths = [sentence_lengths(doc) for doc in docs]
    if all(len(ls) == 1 for ls in lengths):  # one sentence a Doc: the encoder as it is
        Ys, backprop_encode = encode(Xs, is_train)
        return Ys, lambda dYs: backprop_embed(backprop_encode(dYs))
    ops = model.ops
    sents = [part for X, ls in zip(Xs, lengths) for part in ops.xp.split(X, starts(ls))]
    Ys, backprop_encode = encode(sents, is_train)
    counts = [len(ls) for ls in lengths]
    ends = list(accumulate(counts))
    joined = [ops.xp.concatenate(Ys[end - n:end]) for end, n in zip(ends, counts)]

    def backprop(dYs: List[Floats2d]) -> List:
        d_sents = [part for dY, ls in zip(dYs, lengths) for part in ops.xp.split(dY, starts(ls))]
        dXs = backprop_encode(d_sents)
        return backprop_embed([ops.xp.concatenate(dXs[end - n:end]) for end, n in zip(ends, counts)])

    return joined, backprop


def init(model: Model, X=None, Y=None) -> Model:
    embed, encode = model.layers
    embed.initialize(X=X)
    encode.initialize(X=embed.predict(X) if X is not None else None)
    if encode.has_dim("nO"):
        model.set_dim("nO", encode.get_dim("nO"))
    return model
