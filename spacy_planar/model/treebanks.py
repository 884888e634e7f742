"""A learned treebank embedding: one pipeline learns from several treebanks
and writes in the style of the one it is told (Stymne et al. 2018).

Treebanks of one language differ in their annotation habits; concatenated,
they teach a parser a blend of them. Stymne, de Lhoneux, Smith and Nivre
(ACL 2018, "Parser training with heterogeneous treebanks") give each word's
input a small vector of its treebank, learned with the rest: the encoder
learns what the treebanks share and, through that vector, how each differs;
at parse time the target treebank's vector asks for its style.

The rows are the treebanks the training reader names (``readers.TREEBANKS_KEY``
on the Docs the model is initialized with: the target first), kept in the
layer's attrs, so a saved pipeline knows them. A Doc is read with the row of
its treebank (``TREEBANK_KEY``: the reader's, or one ``parse --treebank`` or
``Doc._.treebank`` sets), else with the row of ``write_as`` (the target,
unless ``set_treebank`` chose another). Trained on one treebank, the layer
gives zeros: it adds nothing to the pipeline.
"""
from __future__ import annotations

from typing import Callable, List, Sequence, Tuple

import numpy
from spacy.tokens import Doc
from thinc.api import Model, uniform_init
from thinc.types import Floats2d

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import TREEBANK_KEY, TREEBANKS_KEY

LAYER_NAME = "treebank_embed"


def build_treebank_embed(width: int) -> Model[List[Doc], List[Floats2d]]:
    """Docs -> per Doc [words, width]: each word the vector of its Doc's treebank."""
    return Model(LAYER_NAME, forward, init=init, dims={"nO": width, "nV": None}, params={"E": None},
                 attrs={"treebanks": [], "write_as": ""})


def init(model: Model, X=None, Y=None) -> Model:
    names = list(X[0].user_data.get(TREEBANKS_KEY, ())) if X else []
    if names:
        model.attrs["treebanks"] = names
        model.attrs["write_as"] = names[0]
    n = max(1, len(model.attrs["treebanks"]))
    model.set_dim("nV", n)
    model.set_param("E", uniform_init(model.ops, (n, model.get_dim("nO"))))
    return model


def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    ops = model.ops
    width = model.get_dim("nO")
    names = model.attrs["treebanks"]
    if len(names) < 2:
        return [ops.alloc2f(len(doc), width) for doc in docs], lambda d_out: []
    rows = {name: i for i, name in enumerate(names)}
    default = rows.get(model.attrs["write_as"], 0)
    lengths = [len(doc) for doc in docs]
    ids = ops.asarray1i(numpy.repeat([rows.get(doc.user_data.get(TREEBANK_KEY), default) for doc in docs], lengths))
    table = model.get_param("E")
    vectors = table[ids]

    def backprop(d_out: List[Floats2d]) -> List:
        d_table = ops.alloc2f(*table.shape)
        ops.scatter_add(d_table, ids, ops.flatten(d_out, ndim_if_empty=2))
        model.inc_grad("E", d_table)
        return []

    return ops.unflatten(vectors, lengths), backprop


def treebank_layers(nlp) -> List[Model]:
    """The treebank embeddings of a pipeline's components' models."""
    return [node for _, pipe in getattr(nlp, "pipeline", []) if isinstance(getattr(pipe, "model", None), Model)
            for node in pipe.model.walk() if node.name == LAYER_NAME]


def treebanks(nlp) -> List[str]:
    """The treebanks a pipeline was trained on, the target first ([] for a pipeline of one)."""
    names = [name for layer in treebank_layers(nlp) for name in layer.attrs["treebanks"]]
    return list(dict.fromkeys(names)) if len(set(names)) > 1 else []


def set_treebank(nlp, name: str, layers: Sequence[Model] = ()) -> None:
    """Make a pipeline write in the style of treebank ``name`` (one of
    ``treebanks(nlp)``) where a Doc names none: a one-line error (E137) for
    a name it was not trained on."""
    known = treebanks(nlp)
    if name not in known:
        raise UserError(Errors.E137.format(name=name, known=", ".join(known) or "one treebank only"))
    for layer in layers or treebank_layers(nlp):
        if name in layer.attrs["treebanks"]:
            layer.attrs["write_as"] = name
