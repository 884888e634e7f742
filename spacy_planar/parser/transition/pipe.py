"""The ``planar_parser`` pipeline component: a thin spaCy layer over the
transition systems (``systems/``), their oracles (``oracles/``), the driver
loop (``driver.py``) and the model (``model/``); how it learns is in
``training.py``, its factory in ``factory.py``.

Parsing (``parsing.py``): the Docs of a batch are cut into units (the
sentences set by an earlier component, or else whole Docs), all units are
parsed together on the batched core, each transition scoring every live
state at once; the trees are decoded (arc-eager: ``deprojectivize``) and
written to ``Token.head`` / ``Token.dep_``, which also sets the sentence
boundaries (one per root).
"""
import warnings
from collections import Counter
from dataclasses import replace
from itertools import islice
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from thinc.api import Model, set_dropout_rate

from spacy_planar import model as _model  # noqa: F401  (registers the encoders)
from spacy_planar.parser.transition import parser_model as _parser_model  # noqa: F401  (registers the architecture)
from spacy_planar.errors import Errors, UserError, Warnings, unexpected
from spacy_planar.io.doc_trees import set_trees
from spacy_planar.parser.transition.teachers import Teachers
from spacy_planar.parser.shared.extensions import register as register_extensions
from spacy_planar.parser.shared.codec import TreeCodec
from spacy_planar.parser.shared.base import ParserPipe
from spacy_planar.parser.shared.handover import Handover, TreeParse, set_own_trees
from spacy_planar.parser.transition.parsing import parse_docs, set_parses, unit_parses
from spacy_planar.parser.shared.units import units
from spacy_planar.parser.transition.settings import ParserSettings
from spacy_planar.parser.systems import TransitionSystem, Tree
from spacy_planar.parser.systems.registry import Configured
from spacy_planar.parser.shared.gold import Bounds
from spacy_planar.parser.transition.training import Trainer, beam_loss, loss_towards
from spacy_planar.trees.algorithms import first_sets
from spacy_planar.trees.pseudoproj import undecorate
from spacy_planar.trees.transforms import clean_label

register_extensions()


class PlanarParser(ParserPipe, TrainablePipe):
    """Non-projective transition-based dependency parser: spaCy's TrainablePipe protocol, each
    method a short layer over this room's loop (driver, beam, parsing), the shared codec and
    training.py, which do the work."""

    def __init__(self, vocab, model: Model, name: str, *, transition_system: Configured, single_root: bool,
                 root_label: Optional[str], extra_root_label: str, exploration: float,
                 exploration_nonprojective: Optional[float], exploration_keep_order: bool, beam_width: int,
                 beam_density: float, beam_merge: bool, beam_update: str, tree_transforms: Sequence[str],
                 scorer: Optional[Callable], n_best: int, head_probs: bool = False):
        """Built by the factory (``factory.py``), whose default config holds
        every default; the options are documented there."""
        self.vocab = vocab
        self.model = model
        self.name = name
        self.make_system = transition_system
        self.scorer = scorer
        self.settings = ParserSettings.from_options(
            name, transition_system.to_dict(), transition_system.cls.dynamic_oracle, root_label=root_label,
            tree_transforms=list(tree_transforms), single_root=single_root, extra_root_label=extra_root_label,
            exploration=exploration, exploration_nonprojective=exploration_nonprojective,
            exploration_keep_order=exploration_keep_order, beam_width=beam_width, beam_density=beam_density,
            beam_merge=beam_merge, beam_update=beam_update, n_best=n_best, head_probs=head_probs)
        self._system: Optional[TransitionSystem] = None
        self._codec: Optional[TreeCodec] = None
        self.trainer = Trainer(self.settings)
        # parsed sentences whose output was repaired, by the code of the repair (repairs.py)
        self.repaired: Counter = Counter()
        self.teachers = None  # teachers.Teachers, where initialize is given them
        self.handover = Handover()  # each sentence's parse for the decider after it (``parse_decider``)

    # --- the transition system and labels ---------------------------------------
    @property
    def system(self) -> TransitionSystem:
        if self._system is None:
            # with the templates the model was trained with, and top-down's FIRST sets
            s = self.settings
            learned = {"features": s.features, "label_features": s.label_features}
            if self.make_system.cls.reads_tags:
                learned["first"] = s.first
            self._system = self.make_system(s.labels, s.root_label, **learned)
        return self._system

    @property
    def codec(self) -> TreeCodec:
        """A tree's way into the system and back out (``codec.py``)."""
        if self._codec is None:
            self._codec = TreeCodec(self.system, self.settings)
        return self._codec

    def _reset(self) -> None:
        """The labels or the root label changed: rebuild the system, forget the oracle cache."""
        self._system = None
        self._codec = None
        self.trainer.clear()

    @property
    def labels(self) -> Tuple[str, ...]:
        """The dependency labels, plain (pseudo-projective marks stay inside)."""
        s = self.settings
        return tuple(sorted({clean_label(undecorate(label)) for label in s.labels} | {s.root_label}))

    @property
    def skipped(self):
        """Training Examples left out, by reason."""
        return self.trainer.skipped

    def _resize(self) -> None:
        system = self.system
        self.model.get_ref("lower").set_dim("nF", len(system.features), force=True)
        self.model.get_ref("labels").set_dim("nL", len(system.label_features), force=True)
        self.model.get_ref("labels").set_dim("nV", len(system.labels) + 1, force=True)
        upper = self.model.get_ref("upper")
        n_scored = system.n_scored
        if upper.has_param("W") and upper.get_dim("nO") != n_scored:
            raise UserError(Errors.E060.format(name=self.name, n_model=upper.get_dim("nO"), n_system=n_scored))
        if (system.actions.word_move is not None) != self.model.has_ref("arcs"):  # a word move's arc scores
            raise UserError(Errors.E063.format(name=self.name, system=system.name))
        self.model.set_dim("nO", n_scored, force=True)
        upper.set_dim("nO", n_scored, force=True)
        if self.model.has_ref("parts"):  # labels scored apart: the parts of each action
            parts = self.model.get_ref("parts")
            names, matrix = system.table.factors()
            if parts.has_param("W") and parts.get_dim("nO") != len(names):
                raise UserError(Errors.E060.format(name=self.name, n_model=parts.get_dim("nO"),
                                                    n_system=len(names)))
            parts.set_dim("nO", len(names), force=True)
            parts.attrs["parts"] = matrix

    # --- training ---------------------------------------------------------------------
    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Sequence[str]] = None, teachers: Sequence[str] = (),
                   teacher_weight: float = 1.0) -> None:
        """The labels, root label, feature templates and model from the
        training data. ``teachers``: pipelines of this config trained on the
        same treebank (other seeds) whose ensemble the parser learns from
        (``transition/teachers.py``: their move distributions as soft targets, mixed with
        the oracle's by ``teacher_weight``); set in ``[initialize.components.NAME]``."""
        validate_get_examples(get_examples, "PlanarParser.initialize")
        self.teachers = Teachers(teachers, self.name, teacher_weight) if teachers else None
        roots: Counter = Counter()
        for eg in get_examples():
            for tok in eg.reference:
                if eg.reference.has_annotation("DEP") and tok.head.i == tok.i:
                    roots[tok.dep_] += 1
        settings = self.settings
        if roots and settings.learn_root_label:
            settings.root_label = roots.most_common(1)[0][0]
        self._reset()
        probe = self.make_system([], settings.root_label)
        codec = TreeCodec(probe, settings)
        found = set(labels or []) | set(self.teachers.labels if self.teachers else [])
        # top-down's FIRST lookahead (Hayashi et al. 2012, section 5.4): from the trees the system
        # derives and the reference UPOS, where every reference has POS
        tagged: Optional[List] = [] if probe.reads_tags else None
        for eg in get_examples():
            if tagged is not None and not eg.reference.has_annotation("POS"):
                tagged = None
            for (start, end), tree in self.trainer.gold_trees(eg, codec) or []:
                heads, tree_labels = codec.encode(tree)
                found.update(tree_labels)
                if tagged is not None and len(eg.predicted) == len(eg.reference):
                    tagged.append((heads, [t.pos_ for t in eg.reference[start:end]]))
        settings.labels = sorted(found - {settings.root_label})
        if probe.reads_tags:
            first = first_sets(tagged) if tagged else {}
            settings.first = {t: sorted(ts) for t, ts in first.items()} or None
        settings.features = list(probe.features)
        settings.label_features = list(probe.label_features)
        self._reset()
        self._resize()
        sample = [eg.predicted for eg in islice(get_examples(), 10)]
        self.model.initialize(X=sample)
        if self.teachers is not None:
            self.teachers.check(settings)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One batched update. Units trained with probability 0 of exploring
        (``exploration`` / ``exploration_nonprojective``) take the static
        oracle's cached transitions and are trained towards its action; the
        others are parsed with the current model (``exploration_run``) and
        trained towards their states' targets. One tok2vec pass, with dropout
        and gradient, serves both and the parse (a tok2vec listener only has
        outputs in training mode).

        With ``beam_update`` "global", every unit is also parsed with a beam
        of ``beam_width`` beside its gold derivation (the static oracle's),
        and the loss adds the beam's global loss with early update
        (``driver.beam_train_run``) to the per-transition one (static or
        exploring)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "PlanarParser.update")
        self._step_words = sum(len(eg.predicted) for eg in examples)
        docs, starts, static, exploring = self._units(examples)
        if not docs:
            return losses
        set_dropout_rate(self.model, drop)
        scorer, backprop = self.model.begin_update(docs)
        score = lambda *x: self.model.ops.to_numpy(scorer(*x))  # noqa: E731  (no gradient: the runs' choices)
        steps = [self.trainer.static_steps(self.codec, docs, static, starts)]
        if any(exploring):
            steps.append(self.trainer.exploring_steps(self.codec, score, exploring, starts,
                                                      self.settings.exploration_keep_order))
        steps = [part for part in steps if part is not None]
        if not steps:
            return losses
        ids, labs, targets, valid, more = _joined(steps)
        scores, bp_states = scorer.begin_update(ids, labs, *more)
        if self.teachers is not None:
            soft = self.teachers.targets(self.model.ops, docs, valid, ids, labs, *more)
            d_scores, loss = self.teachers.loss(self.model.ops, scores, targets, valid, soft)
        else:
            d_scores, loss = loss_towards(self.model.ops, scores, targets, valid)
        d_table = bp_states(d_scores)
        if self.settings.beam_update == "global":
            every = [s + [u for u, _ in e] for s, e in zip(static, exploring)]
            run = self.trainer.beam_run(self.codec, score, every, starts, self.settings.beam_width)
            if len(run.mass):
                b_scores, bp_beam = scorer.begin_update(*run.inputs)
                d_table = _add_grads(d_table, bp_beam(beam_loss(self.model.ops, b_scores, run)))
            loss += run.loss
        backprop(d_table)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def _units(self, examples: List[Example]) -> Tuple[List[Doc], List[int], List[List], List[List]]:
        """The batch's Docs with the gold units of each (the codec's trees), their first rows in
        the batch, and the units to train statically and by exploring (with the probability);
        what the gold trees lost on the way is warned of (W095, W099, W125)."""
        docs, starts, static, exploring = [], [], [], []
        offset = 0
        outside, extra_roots, skipped = self.trainer.outside, 0, Counter(self.trainer.skipped)
        for eg in examples:
            trees = self.trainer.gold_trees(eg, self.codec)
            if not trees:
                continue
            extra_roots += sum(self.system.extra_roots(tree[0]) for _, tree in trees)
            chances = [self._exploration_of(tree[0]) for _, tree in trees]
            static.append([u for u, p in zip(trees, chances) if p == 0.0])
            exploring.append([(u, p) for u, p in zip(trees, chances) if p > 0.0])
            docs.append(eg.predicted)
            starts.append(offset)
            offset += len(eg.predicted)
        if self.trainer.outside > outside:
            unexpected(Warnings.W095.format(name=self.name, count=self.trainer.outside - outside))
        left_out = self.trainer.skipped - skipped
        if left_out:  # the data's (a sentence without a parse, other words), not the code's: a warning
            warnings.warn(Warnings.W099.format(name=self.name, count=sum(left_out.values()),
                                             reasons=", ".join(f"{n} {why}" for why, n in sorted(left_out.items()))),
                          UserWarning, stacklevel=3)
        if extra_roots:
            unexpected(Warnings.W125.format(name=self.name, count=extra_roots, system=self.system.name))
        return docs, starts, static, exploring

    def _exploration_of(self, heads: Sequence[int]) -> float:
        """The probability of exploring when training on this gold tree."""
        explore_np = self.settings.exploration_nonprojective
        if explore_np is None or self.trainer.is_projective(heads):
            return self.settings.exploration
        return explore_np

    def get_loss(self, examples, scores):
        raise NotImplementedError("PlanarParser computes its loss inside update()")

    # --- parsing -----------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc], *, beam_width: Optional[int] = None, scorer=None
                ) -> List[List[Tuple[Bounds, Tree]]]:
        """The tree of every unit of ``docs`` (``parsing.parse_docs``), in
        the system's terms. ``beam_width``: in place of the component's, for
        this call only (``spacy-planar lab search-errors``); ``scorer``: the
        moves' scores over the Docs' tokens in place of the model's
        (``moves.py``: ``EnsembleScorer``)."""
        docs = list(docs)
        found = [(k, s, e) for k, doc in enumerate(docs) for s, e in units(doc)]
        if not found:
            return [[] for _ in docs]
        settings = self.settings if beam_width is None else replace(self.settings, beam_width=int(beam_width))
        if self.handover.listening and not settings.keeps_finals:  # the decider reads the moves' probabilities
            settings = replace(settings, head_probs=True)
        scorer = self.model.predict(docs) if scorer is None else scorer
        return parse_docs(self.system, scorer, self.model.ops, docs, found, settings)

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        """Heads and labels of every unit, brought back to UD and checked
        (``codec.TreeCodec.output_trees``), written Doc by Doc; with
        ``n_best`` > 1, each unit's k best parses and each word's arc
        probability (``shared/extensions.py``); where a decider listens, each unit's parse
        handed over to it (``shared/handover.py``: ``TreeParse``) and its tree in ``Doc._.trees``."""
        docs = list(docs)
        out = self.codec.output_trees(predictions, self.name, self.repaired)
        if out.lengths:
            set_trees(docs, out.heads, out.labels, out.lengths)
        s = self.settings
        parses = unit_parses(predictions, out, s.calibration["temperature"]) if out.lengths else []
        if s.keeps_finals:
            set_parses(docs, parses, s.n_best, s.calibration)
        if self.handover.listening:
            kept = s.n_best if s.n_best > 1 and s.beam_width > 1 else 0
            by_doc: List[List[TreeParse]] = [[] for _ in docs]
            for (k, span, alts, move_logp), (heads, labels, fixed) in zip(parses, out.units()):
                by_doc[k].append(TreeParse(span, heads, labels, np.exp(np.asarray(move_logp, dtype=float)),
                                           alts[:kept] if kept else None, fixed))
            for doc, doc_parses in zip(docs, by_doc):
                self.handover.put(doc, doc_parses)
                set_own_trees(doc, self.name, doc_parses)

    def _load_cfg(self, cfg: dict) -> None:
        """The saved settings (``ParserSettings.load``: the options set at load stay)."""
        self.settings.load(self.name, cfg)
        self._reset()


def _joined(steps: List[Tuple]) -> Tuple:
    """(ids, labels, targets, valid, model inputs) of the static and the exploring steps as one
    batch, each with the system's model inputs (``training_arrays``)."""
    if len(steps) == 1:
        return steps[0]
    ids, labs, targets, valid, *more = (np.concatenate(part) for part in
                                        [*list(zip(*steps))[:4], *zip(*(part[4] for part in steps))])
    return ids, labs, targets, valid, more


def _add_grads(a, b):
    """The sum of two gradients of the feature table (with the arc scorer:
    pairs of the table's and a dict of the arc tables')."""
    if not isinstance(a, tuple):
        return a + b
    (ta, da), (tb, db) = a, b
    if da is None or db is None:
        return ta + tb, da if db is None else db
    return ta + tb, {k: da[k] + db[k] for k in da}
