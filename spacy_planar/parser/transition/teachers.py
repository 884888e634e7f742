"""An ensemble distilled into one parser (``train --teacher``): the ensemble's move distributions
as soft targets (``Teachers``), the members' moves as one (``moves.py``: ``EnsembleScorer``,
which ``parse --ensemble`` decodes with too).

``parse --ensemble`` parses with several pipelines of one config (other
seeds) at once, at the cost of all of them. Distillation trains one parser of
the same config towards the ensemble instead (Kuncoro et al. 2016; with
exploration, Liu et al. 2018): in every state the student trains on (the
static oracle's and those its own exploring parses reach), the target is the
ensemble's distribution over the valid moves, the normalised product of its
members' (``EnsembleScorer``: the mean of their log-probabilities,
what ``parse --ensemble`` decodes with), mixed with the oracle's one-hot
target by ``weight``. The teachers are loaded when the student is
initialized (``[initialize.components.planar_parser] teachers``), read each
batch's words with their own vocab and encoders, and are never trained or
saved with the student.
"""
from __future__ import annotations

from typing import List, Sequence


from spacy_planar.errors import Errors, UserError
from spacy_planar.io.doc_trees import words_copy
from spacy_planar.parser.transition.moves import EnsembleScorer
from spacy_planar.parser.shared.softmax import softmax
from spacy_planar.parser.transition.training import loss_towards


class Teachers:
    """Trained pipelines whose parsers' moves the student learns from."""

    def __init__(self, paths: Sequence[str], name: str, weight: float = 1.0):
        import spacy

        if not 0.0 < weight <= 1.0:
            raise UserError(Errors.E061.format(name=name, option="teacher_weight", value=weight))
        self.weight = weight
        self.members = []
        for path in paths:
            nlp = spacy.load(path)
            parser = next((pipe for name, pipe in nlp.pipeline if nlp.get_pipe_meta(name).factory == "planar_parser"),
                          None)
            if parser is None:
                raise UserError(Errors.E138.format(path=path, reason="it has no planar_parser"))
            self.members.append((path, nlp, parser))

    @property
    def labels(self) -> List[str]:
        """Every label of the teachers' parsers (the student's take them all)."""
        return sorted({label for _, _, parser in self.members for label in parser.settings.labels})

    def check(self, settings) -> None:
        """A one-line error (E138) where a teacher's moves are not the student's (``settings``: its
        parser's ``ParserSettings``)."""
        for path, _, parser in self.members:
            for key in ("labels", "root_label", "system", "features", "label_features"):
                if getattr(parser.settings, key) != getattr(settings, key):
                    raise UserError(Errors.E138.format(path=path, reason=f"its parser's {key} differ"))

    def scorer(self, docs: List) -> EnsembleScorer:
        """The teachers' state scorer of a batch (each teacher encoding the
        Docs' words in its own vocab)."""
        scorers = []
        for _, nlp, parser in self.members:
            copies = [words_copy(nlp.vocab, doc) for doc in docs]
            if "tok2vec" in nlp.pipe_names:  # each copy's tensor, which the parser's listener reads
                list(nlp.get_pipe("tok2vec").pipe(copies))
            scorers.append(parser.model.predict(copies))
        return EnsembleScorer(scorers)

    def targets(self, ops, docs: List, valid, *inputs):
        """The ensemble's probabilities of the valid moves of the states
        ``inputs`` name (the student's scorer's inputs)."""
        return softmax(ops.xp, ops.asarray(self.scorer(docs)(*inputs)), ops.asarray(valid))

    def loss(self, ops, scores, targets, valid, teacher_probs):
        """Cross-entropy with the teachers' distribution (gradient ``p - q``),
        mixed with the oracle's (``training.loss_towards``) by ``weight``."""
        probs = softmax(ops.xp, scores, ops.asarray(valid))
        soft_loss = float(-(teacher_probs * ops.xp.log(probs + 1e-12)).sum())
        d_soft = probs - teacher_probs
        if self.weight >= 1.0:
            return d_soft, soft_loss
        d_hard, hard_loss = loss_towards(ops, scores, targets, valid)
        return (self.weight * d_soft + (1.0 - self.weight) * d_hard,
                self.weight * soft_loss + (1.0 - self.weight) * hard_loss)
