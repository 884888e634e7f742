"""What the word encoders that read a variable number of keys per word
share (``CharEmbed.v3``: a word's characters; ``WithMorphology.v1``: its
UPOS, XPOS and FEATS pairs): the keys of a word form built once and cached
(``cached_rows``), and a layer over the batch's words at once whose output
is split back per Doc (``per_word_layer``). The caches live in the layer's
closure, not in its attrs: they are derived from the vocab, and a saved
model does not carry them. And what a word's vector depends on: where only
its form does, ``by_form`` computes it once per form of a batch when
parsing.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy
from spacy.attrs import IDS, NORM, intify_attr
from spacy.tokens import Doc
from thinc.api import Model, Ops
from thinc.layers.chain import forward as chain_forward
from thinc.types import Floats2d, Ragged

from spacy_planar.io.conllu.docs import TREEBANK_KEY

# the forms a word encoder's cache holds at most (``cached_rows``; static_vectors.py's too): emptied when a
# batch would pass it, so parsing millions of words keeps memory flat (about 60 MB of character codes)
CACHE_LIMIT = 200_000

# (Docs, is_train, ops) -> a Ragged of the batch's words' keys, a length per word
Inputs = Callable[[List[Doc], bool, Ops], Ragged]


def cached_rows(keys: numpy.ndarray, cache: Dict[int, numpy.ndarray], compute: Callable[[int], numpy.ndarray],
                lead: int = 0) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """For ``keys`` [words]: rows [words, lead + longest] (uint64) holding,
    after ``lead`` columns left for the caller, the array of each word's key
    (``cache[key]``, ``compute(key)`` the first time), and the mask [words,
    lead + longest] of the columns each word uses (its lead ones included).
    ``rows[mask]`` are the keys word after word, ``mask.sum(1)`` their
    counts. The cache holds at most ``CACHE_LIMIT`` keys (emptied when a batch would pass it)."""
    uniq, inverse = numpy.unique(keys, return_inverse=True)
    if len(cache) + len(uniq) > CACHE_LIMIT:  # bounded: a corpus of millions of forms parses in flat memory
        cache.clear()
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


# the attributes a word's form fixes (its lexeme's, which every token of the form shares), and NORM, which
# a token may override (``by_form`` keys on it)
LEXICAL = {IDS[name] for name in (
    "ORTH", "LOWER", "NORM", "SHAPE", "PREFIX", "SUFFIX", "LENGTH", "LANG", "ID", "IS_ALPHA", "IS_ASCII",
    "IS_DIGIT", "IS_LOWER", "IS_PUNCT", "IS_SPACE", "IS_TITLE", "IS_UPPER", "LIKE_URL", "LIKE_NUM", "LIKE_EMAIL",
    "IS_STOP", "IS_BRACKET", "IS_QUOTE", "IS_LEFT_PUNCT", "IS_RIGHT_PUNCT", "IS_CURRENCY")}


def reads_forms_only(layer: Model) -> bool:
    """Whether the spaCy attributes ``layer``'s feature extractors read
    (spaCy's ``FeatureExtractor``, in ``MultiHashEmbed``) are all lexical
    or NORM: then, with the character CNN, the static vectors and the
    treebank embedding, a word's vector is a function of its form, its
    NORM and its Doc's treebank."""
    columns = [column for node in layer.walk() if node.name == "extract_features"
               for column in node.attrs.get("columns", ())]
    return all(intify_attr(column) in LEXICAL for column in columns)


def by_form(layer: Model[List[Doc], List[Floats2d]]) -> Model[List[Doc], List[Floats2d]]:
    """``layer`` (a ``chain`` of word embeddings, Docs -> per Doc [words,
    width]) in its own place: the same node, so pipelines saved before load
    (Thinc's nodes are matched by position). Training runs it as it is
    (each word its own dropout). Parsing, where it reads only what a form
    fixes (``reads_forms_only``), runs it over each distinct (ORTH, NORM,
    treebank) of the batch once, as a Doc of those words per treebank, and
    gives each word its form's row: the same vectors, for the 8-30 % of a
    1,000-Doc batch's words that are distinct (la_llct test: 8 %, got_proiel
    test: 29 %)."""
    forms_only = reads_forms_only(layer)

    def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
        if is_train or not forms_only or not all(isinstance(doc, Doc) for doc in docs) \
                or not sum(len(doc) for doc in docs):
            return chain_forward(model, docs, is_train)
        ops = model.ops
        treebanks: Dict = {}
        rows_of_docs = [treebanks.setdefault(doc.user_data.get(TREEBANK_KEY), len(treebanks)) for doc in docs]
        keys = numpy.hstack([doc_arrays(docs, ["ORTH", "NORM"]),
                             numpy.repeat(rows_of_docs, [len(doc) for doc in docs]).astype(numpy.uint64)[:, None]])
        forms, inverse = numpy.unique(keys, axis=0, return_inverse=True)
        order = numpy.argsort(forms[:, 2], kind="stable")  # the forms Doc by Doc (one per treebank)
        position = numpy.empty(len(forms), dtype=numpy.int64)
        position[order] = numpy.arange(len(forms))
        forms = forms[order]
        strings = docs[0].vocab.strings
        form_docs = []
        for name, row in treebanks.items():
            these = forms[forms[:, 2] == row]
            if not len(these):  # a treebank of empty Docs only
                continue
            doc = Doc(docs[0].vocab, words=[strings[int(orth)] for orth in these[:, 0]])
            doc.from_array([NORM], these[:, 1:2])
            if name is not None:
                doc.user_data[TREEBANK_KEY] = name
            form_docs.append(doc)
        vectors, bp_forms = chain_forward(model, form_docs, is_train)
        rows = ops.asarray1i(position[inverse.reshape(-1)])
        flat = ops.flatten(vectors)

        def backprop(d_out: List[Floats2d]) -> List:
            d_forms = ops.alloc2f(*flat.shape)
            ops.scatter_add(d_forms, rows, ops.flatten(d_out))
            return bp_forms(ops.unflatten(d_forms, [len(vectors_of_doc) for vectors_of_doc in vectors]))

        return ops.unflatten(flat[rows], [len(doc) for doc in docs]), backprop

    return Model(layer.name, forward, init=layer.init, layers=layer.layers, attrs=dict(layer.attrs),
                 dims={name: layer.maybe_get_dim(name) for name in layer.dim_names},
                 refs={name: layer.get_ref(name) for name in layer.ref_names})
