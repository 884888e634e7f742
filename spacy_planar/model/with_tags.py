"""``spacy-planar.WithTags.v1``: the parser reads the tags that earlier
components predicted, as UDPipe's parser reads its tagger's output (Straka &
Straková 2017): each word's vector from the shared tok2vec is concatenated
with embeddings of its predicted UPOS and FEATS (a ``morphologizer``) and
XPOS (a ``tagger``). The taggers must run before the parser, in training too:
list them in ``[training] annotating_components``. Input stays words only.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy
from spacy.strings import hash_string
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import HashEmbed, Model, chain, concatenate, list2ragged, ragged2list, with_array
from thinc.types import Floats2d


@registry.architectures("spacy-planar.WithTags.v1")
def build_with_tags(tok2vec: Model[List[Doc], List[Floats2d]], attrs: List[str] = ["POS", "MORPH", "TAG"],
                    width: int = 32, rows: int = 1000) -> Model[List[Doc], List[Floats2d]]:
    """``tok2vec``'s vectors (usually a ``spacy.Tok2VecListener.v1``), each
    concatenated with a ``width``-wide hashed embedding (``rows`` rows) of
    each of the token attributes ``attrs``, read from the Docs as the
    earlier components left them. Output width: tok2vec's plus
    ``width * len(attrs)``."""
    from spacy.ml.featureextractor import FeatureExtractor

    embeds = [HashEmbed(nO=width, nV=rows, column=i, seed=17 + i) for i in range(len(attrs))]
    tags = chain(FeatureExtractor(list(attrs)), list2ragged(), with_array(concatenate(*embeds)), ragged2list())
    return concatenate(tok2vec, tags)


# the namespaces of the keys (UPOS ids and XPOS hashes are mixed with these so that they never meet a FEATS key)
_UPOS, _XPOS = numpy.uint64(0x9E3779B97F4A7C15), numpy.uint64(0xC2B2AE3D27D4EB4F)
_UNKNOWN = numpy.uint64(0x165667B19E3779F9)  # what a dropped key reads (``tag_dropout``)


@registry.architectures("spacy-planar.WithMorphology.v1")
def build_with_morphology(tok2vec: Model[List[Doc], List[Floats2d]], width: int = 64, rows: int = 4000,
                          dropout: float = 0.0, tag_dropout: float = 0.0) -> Model[List[Doc], List[Floats2d]]:
    """``tok2vec``'s vectors concatenated with each word's morphology as the
    earlier components predicted it, one feature at a time (as Stanza's
    parser reads its tagger's output: an embedding per UPOS, per XPOS and
    per FEATS attribute-value pair, here summed): the sum of ``width``-wide
    hashed embeddings (``rows`` rows) of its UPOS, its XPOS and each
    ``Attr=Value`` of its FEATS. A word whose Case is right but whose
    Gender is not keeps what Case says (a whole-tag embedding,
    ``WithTags.v1``, loses it). ``dropout``: on the embeddings' rows while
    training; ``tag_dropout``: the probability that a key is read as
    "unknown" while training (the taggers' errors, which the parser meets
    at parse time, as UDPipe 2 drops words). The taggers must run before the parser, in training too:
    ``[training] annotating_components``. Output width: tok2vec's plus
    ``width``."""
    embed = HashEmbed(nO=width, nV=rows, column=0, seed=29, dropout=dropout if dropout > 0 else None)
    return concatenate(tok2vec, Model("morphology", _morphology_forward, init=lambda model, X=None, Y=None:
                                      model.layers[0].initialize(), layers=[embed], dims={"nO": width},
                                      attrs={"feats": {}, "tag_dropout": tag_dropout}))


def _morphology_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    """Per Doc [words, width]: the sum of each word's keys' embeddings (the
    keys of the whole batch embedded at once)."""
    ops, embed = model.ops, model.layers[0]
    keys, per_word = _keys_forward(model, docs, is_train)
    vectors, bp_embed = embed(keys, is_train)
    summed = ops.reduce_sum(vectors, per_word)
    lengths = [len(doc) for doc in docs]

    def backprop(d_out: List[Floats2d]) -> List:
        bp_embed(ops.backprop_reduce_sum(ops.flatten(d_out, ndim_if_empty=2), per_word))
        return []

    return ops.unflatten(summed, lengths), backprop


def _keys_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple:
    """The batch's keys of its words' UPOS, XPOS and FEATS pairs: [keys, 1]
    uint64, and how many each word has (2 + its pairs)."""
    cache: Dict[int, numpy.ndarray] = model.attrs["feats"]  # MORPH key -> its pairs' keys
    keys, per_word = [numpy.zeros((0,), dtype=numpy.uint64)], [numpy.zeros((0,), dtype=numpy.int32)]
    for doc in docs:
        arr = doc.to_array(["POS", "TAG", "MORPH"]).astype(numpy.uint64).reshape((-1, 3))
        uniq, inverse = numpy.unique(arr[:, 2], return_inverse=True)
        for key in uniq.tolist():
            if key not in cache:
                text = doc.vocab.strings[key] if key in doc.vocab.strings else ""
                pairs = [p for p in text.split("|") if p and p != "_"]
                cache[key] = numpy.asarray([hash_string(f"FEATS:{p}") for p in pairs], dtype=numpy.uint64)
        n_pairs = numpy.asarray([len(cache[k]) for k in uniq.tolist()], dtype=numpy.int32)
        table = numpy.zeros((len(uniq), 2 + int(n_pairs.max(initial=0))), dtype=numpy.uint64)
        for u, key in enumerate(uniq.tolist()):
            table[u, 2:2 + n_pairs[u]] = cache[key]
        inverse = inverse.reshape(-1)
        rows = table[inverse]
        rows[:, 0] = arr[:, 0] ^ _UPOS
        rows[:, 1] = arr[:, 1] ^ _XPOS
        present = numpy.arange(table.shape[1])[None, :] < (2 + n_pairs[inverse])[:, None]
        keys.append(rows[present])
        per_word.append(present.sum(axis=1).astype(numpy.int32))
    keys = numpy.concatenate(keys)
    if is_train and model.attrs["tag_dropout"] > 0:
        keys[numpy.random.random(len(keys)) < model.attrs["tag_dropout"]] = _UNKNOWN
    return model.ops.asarray(keys.reshape((-1, 1))), model.ops.asarray1i(numpy.concatenate(per_word))
