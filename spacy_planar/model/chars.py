"""``spacy-planar.CharEmbed.v3``: a word's characters, read by a small CNN (and static vectors).

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

from typing import Dict, List, Optional

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import HashEmbed, Maxout, Model, Ops, chain, concatenate, expand_window, reduce_max, with_array
from thinc.types import Floats2d, Ragged

from spacy_planar.model.per_word import Inputs, by_form, cached_rows, doc_arrays, per_word_layer, ragged_keys
from spacy_planar.model.static_vectors import build_static_vectors
from spacy_planar.model.treebanks import build_treebank_embed

# the character CNN's sizes (base.partial.cfg takes them from here): Santos & Zadrozny's, measured on cu_proiel and
# got_proiel (docs/decisions.md)
CHAR_WIDTH, CNN_WIDTH, MAX_CHARS, CHAR_ROWS = 32, 64, 20, 2000


@registry.architectures("spacy-planar.CharEmbed.v3")
def build_char_embed(embed: Model[List[Doc], List[Floats2d]], width: int, char_width: int = CHAR_WIDTH,
                     cnn_width: int = CNN_WIDTH, max_chars: int = MAX_CHARS, rows: int = CHAR_ROWS,
                     word_dropout: float = 0.0, static_vectors: Optional[str] = None,
                     treebank_width: int = 0) -> Model[List[Doc], List[Floats2d]]:
    """``embed``'s vectors concatenated with each word's character CNN
    vector (``char_width``-wide character embeddings of ``rows`` hashed
    rows, windows of three through a ``cnn_width`` maxout, the maximum
    over the word's first ``max_chars`` characters) and, where
    ``static_vectors`` is set (the shipped configs: ``${paths.vectors}``,
    so that ``--paths.vectors DIR`` alone turns them on), the pipeline's
    static vectors projected to ``width`` (``static_vectors.py``: looked up
    by NFC form), mixed to ``width`` by a layer-normalised maxout.
    ``word_dropout``: while training, the share of words whose ``embed``
    vector is zeroed, so that the characters (and vectors) learn to stand
    for a word the table has not seen (UDPipe 2's word dropout).
    ``treebank_width``: where more than 0, a learned vector of this width of
    each word's treebank joins the mix (``treebanks.py``: several treebanks
    in one pipeline, Stymne et al. 2018; zeros where it is trained on one)."""
    cnn = chain(with_array(HashEmbed(nO=char_width, nV=rows, column=0, seed=31)), expand_window(window_size=1),
                with_array(Maxout(nO=cnn_width, nP=2, normalize=True)), reduce_max())
    chars = per_word_layer("char_cnn", char_codes(max_chars), cnn, cnn_width)
    mix = with_array(Maxout(nO=width, nP=3, normalize=True, dropout=0.0))
    if word_dropout:
        embed = drop_words(embed, word_dropout)
    inputs = [embed, chars]
    if static_vectors:
        inputs.append(build_static_vectors(width, str(static_vectors)))
    if treebank_width:
        inputs.append(build_treebank_embed(treebank_width))
    return by_form(chain(concatenate(*inputs), mix))


# the share of words dropped while training, under a name of its own (as the LSTMs' DropConnect,
# bilstm.DROP_CONNECT): spaCy's set_dropout_rate, at every update, sets only ``dropout_rate``
WORD_DROPOUT = "word_dropout"


def drop_words(layer: Model[List[Doc], List[Floats2d]], rate: float) -> Model[List[Doc], List[Floats2d]]:
    """``layer`` with whole rows (words) zeroed at ``rate`` while training
    (the others scaled by 1 / (1 - rate), as dropout does)."""

    def forward(model: Model, docs: List[Doc], is_train: bool):
        Ys, backprop = model.layers[0](docs, is_train)
        if not is_train:
            return Ys, backprop
        masks = [model.ops.get_dropout_mask((len(Y), 1), model.attrs[WORD_DROPOUT]) for Y in Ys]
        return [Y * m for Y, m in zip(Ys, masks)], lambda dYs: backprop([dY * m for dY, m in zip(dYs, masks)])

    return Model(f"drop_words({layer.name})", forward, layers=[layer], dims={"nO": layer.maybe_get_dim("nO")},
                 attrs={WORD_DROPOUT: rate},
                 init=lambda model, X=None, Y=None: model.layers[0].initialize(X=X))


def char_codes(max_chars: int) -> Inputs:
    """The code points of the batch's words (their first ``max_chars``
    characters; one, 0, for a word without any): [characters, 1] uint64, a
    length per word. The codes of each word form are worked out once."""
    cache: Dict[int, numpy.ndarray] = {}

    def codes(docs: List[Doc], is_train: bool, ops: Ops) -> Ragged:
        strings = docs[0].vocab.strings if docs else None

        def code_points(key: int) -> numpy.ndarray:
            text = strings[key][:max_chars] or "\0"
            return numpy.frombuffer(text.encode("utf-32-le"), dtype=numpy.uint32).astype(numpy.uint64)

        return ragged_keys(*cached_rows(doc_arrays(docs, ["ORTH"])[:, 0], cache, code_points), ops)

    return codes
