"""``spacy-planar.WithTags.v1``: the parser reads the tags that earlier
components predicted, as UDPipe's parser reads its tagger's output (Straka &
Straková 2017): each word's vector from the shared tok2vec is concatenated
with embeddings of its predicted UPOS and FEATS (a ``morphologizer``) and
XPOS (a ``tagger``). The taggers must run before the parser, in training too:
list them in ``[training] annotating_components``. Input stays words only.
"""
from __future__ import annotations

from typing import Dict, List, Sequence

import numpy
from spacy.strings import hash_string
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import HashEmbed, Model, Ops, chain, concatenate, list2ragged, ragged2list, with_array
from thinc.types import Floats2d, Ragged

from spacy_planar.model.per_word import Inputs, cached_rows, doc_arrays, per_word_layer, ragged_keys


@registry.architectures("spacy-planar.WithTags.v1")
def build_with_tags(tok2vec: Model[List[Doc], List[Floats2d]], attrs: Sequence[str] = ("POS", "MORPH", "TAG"),
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
    embed = HashEmbed(nO=width, nV=rows, column=0, seed=29)
    if dropout > 0:
        embed = chain(embed, kept_dropout(dropout))
    return concatenate(tok2vec, per_word_layer("morphology", morphology_keys(tag_dropout), embed, width, summed=True))


# the embeddings' dropout, under a name of its own: spaCy's set_dropout_rate, at every update, sets
# ``dropout_rate`` (which HashEmbed's own dropout reads) to ``training.dropout``
EMBED_DROPOUT = "embed_dropout"


def kept_dropout(rate: float) -> Model[Floats2d, Floats2d]:
    """HashEmbed's dropout (one mask over the columns, shared by the rows,
    while training) at ``rate`` as given, whatever ``training.dropout``."""

    def forward(model: Model, X: Floats2d, is_train: bool):
        if not is_train:
            return X, lambda dY: dY
        mask = model.ops.get_dropout_mask((X.shape[1],), model.attrs[EMBED_DROPOUT])
        return X * mask, lambda dY: dY * mask

    return Model("kept_dropout", forward, attrs={EMBED_DROPOUT: rate})


def morphology_keys(tag_dropout: float) -> Inputs:
    """The batch's keys of its words' UPOS, XPOS and FEATS pairs: [keys, 1]
    uint64, a length per word (2 + its pairs); while training, each key is
    read as unknown with probability ``tag_dropout``. The pairs of each
    FEATS analysis are worked out once."""
    cache: Dict[int, numpy.ndarray] = {}  # MORPH key -> its pairs' keys

    def keys(docs: List[Doc], is_train: bool, ops: Ops) -> Ragged:
        strings = docs[0].vocab.strings if docs else None

        def pairs(key: int) -> numpy.ndarray:
            text = strings[key] if key in strings else ""
            return numpy.asarray([hash_string(f"FEATS:{p}") for p in text.split("|") if p and p != "_"],
                                 dtype=numpy.uint64)

        arr = doc_arrays(docs, ["POS", "TAG", "MORPH"])
        rows, present = cached_rows(arr[:, 2], cache, pairs, lead=2)
        rows[:, 0] = arr[:, 0] ^ _UPOS
        rows[:, 1] = arr[:, 1] ^ _XPOS
        if is_train and tag_dropout > 0:
            dropped = numpy.zeros(present.shape, dtype=bool)
            dropped[present] = numpy.random.random(int(present.sum())) < tag_dropout
            rows[dropped] = _UNKNOWN
        return ragged_keys(rows, present, ops)

    return keys
