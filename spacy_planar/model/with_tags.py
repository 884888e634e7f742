"""``spacy-planar.WithTags.v1``: the parser reads the tags that earlier
components predicted, as UDPipe's parser reads its tagger's output (Straka &
Straková 2017): each word's vector from the shared tok2vec is concatenated
with embeddings of its predicted UPOS and FEATS (a ``morphologizer``) and
XPOS (a ``tagger``). The taggers must run before the parser, in training too:
list them in ``[training] annotating_components``. Input stays words only.
"""
from __future__ import annotations

from typing import List

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
