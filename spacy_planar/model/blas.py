"""``spacy-planar.numpy_blas.v1``, the shipped configs' ``[nlp.after_pipeline_creation]``
callback: every component model on the CPU multiplies its matrices with numpy's BLAS rather
than blis."""
from __future__ import annotations

from typing import Callable

from spacy.language import Language
from spacy.util import registry
from thinc.api import NumpyOps


@registry.callbacks("spacy-planar.numpy_blas.v1")
def make_numpy_blas() -> Callable[[Language], Language]:
    """An ``after_pipeline_creation`` callback: each component model that
    runs on Thinc's ``NumpyOps`` multiplies its matrices through numpy's
    BLAS (``NumpyOps(use_blis=False)``) instead of blis, at about 3x the
    speed on this project's machines (docs/decisions.md, 2026-11-27). The
    same operations, the same weights; a model on a GPU is left as it is.
    Runs wherever the pipeline is created: ``spacy train``, ``spacy.load``.
    """

    def numpy_blas(nlp: Language) -> Language:
        ops = NumpyOps(use_blis=False)
        for _, pipe in nlp.pipeline:
            for node in pipe.model.walk() if hasattr(pipe, "model") else ():
                if type(node.ops) is NumpyOps and node.ops.use_blis:
                    node.ops = ops
        return nlp

    return numpy_blas
