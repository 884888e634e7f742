"""Teachers for the graph-based parser (``train --teacher`` with a ``biaffine_parser``): trained
pipelines of any of our parsers, the biaffine's or a transition system's, as one ensemble
(``members.Ensemble``), whose mean distribution over each word's heads (what the reparse decodes:
``reparse.py``) the student learns beside the gold heads (Kuncoro et al. 2016's distillation of an
ensemble, with a graph-based student: the soft targets are per word, not per move, so members of
different systems teach together). Registered as ``spacy-planar.ensemble_heads.v1`` and given to
the component in ``[initialize.components.NAME] teachers``: it asks for the distributions of its
training sentences once, at ``initialize``.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np
from spacy.tokens import Doc
from spacy.util import minibatch, registry

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.pipelines import pipeline_path
from spacy_planar.io.doc_trees import words_copy
from spacy_planar.parser.ensembles.loading import beam_config, ensemble_beam
from spacy_planar.parser.ensembles.members import Ensemble

BATCH = 64  # sentences the teachers parse at a time


class EnsembleHeads:
    """Trained pipelines (paths) as one teacher of heads: called with Docs (words and
    sentences), it gives each unit's (words, words + 1) mean head distribution, in order. As
    ``parse --ensemble`` reads them: among parsers of different kinds a transition parser votes
    with its beam's k best parses (a beam of ``KBEST_BEAM``)."""

    def __init__(self, paths: Sequence[str]):
        import spacy

        if not paths:
            raise UserError(Errors.E138.format(path="teachers", reason="none given"))
        self.paths = [str(pipeline_path(p)) for p in paths]
        beam = ensemble_beam(self.paths)
        pipelines = [spacy.load(path, config=beam_config(path, beam)) for path in self.paths]
        self.ensemble = Ensemble(pipelines[0], pipelines[1:])

    def __call__(self, docs: Sequence[Doc]) -> List[np.ndarray]:
        out: List[np.ndarray] = []
        vocab = self.ensemble.vocab
        for batch in minibatch(docs, BATCH):
            mine = [words_copy(vocab, doc, [bool(t.is_sent_start) for t in doc]) for doc in batch]
            out.extend(arcs.astype("float32") for arcs in self.ensemble.head_distributions(mine))
        return out


@registry.misc("spacy-planar.ensemble_heads.v1")
def ensemble_heads(paths: List[str]) -> EnsembleHeads:
    """The pipelines at ``paths`` as one teacher of heads (``EnsembleHeads``)."""
    return EnsembleHeads(paths)
