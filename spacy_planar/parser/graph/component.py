"""The ``biaffine_parser`` component: the graph-based parser (Dozat & Manning 2017), the
transition parser's sibling, on the same shared encoder, the same way in and out of a tree
(``shared/codec.py``'s ``TreeCodec`` over a ``GraphEncoding``: the trees as they are, or
pseudo-projective) and the same scorer. A thin spaCy layer: the model is ``graph/biaffine.py``,
what it computes with it ``scoring.py``, the decoders ``trees/mst.py`` and ``trees/eisner.py``."""

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from thinc.api import Model, set_dropout_rate

from spacy_planar.defaults import EXTRA_ROOT_LABEL, ROOT_LABEL
from spacy_planar.errors import Errors, UserError, Warnings, unexpected
from spacy_planar.io.conllu import HEAD_PROB_DECIMALS, HEAD_PROBS_KEY
from spacy_planar.io.doc_trees import set_trees
from spacy_planar.parser.graph import biaffine as _biaffine  # noqa: F401  (registers the architecture)
from spacy_planar.parser.graph import scoring as graph
from spacy_planar.parser.graph.teachers import HeadTargets
from spacy_planar.parser.shared import scorer as _scorer  # noqa: F401  (registers the default scorer)
from spacy_planar.parser.shared.codec import TreeCodec
from spacy_planar.parser.shared.base import ParserPipe
from spacy_planar.parser.graph.votes import ArcVotes
from spacy_planar.parser.shared.extensions import register as register_extensions
from spacy_planar.parser.shared.handover import GraphParse, Handover, set_own_trees
from spacy_planar.parser.shared.tok2vec import default_model
from spacy_planar.parser.shared.units import Parsed, unit_words, units, with_whitespace
from spacy_planar.parser.shared.gold import GoldTrees
from spacy_planar.trees.algorithms import Tree
from spacy_planar.trees.pseudoproj import check_encoding, deprojectivize, projectivize
from spacy_planar.trees.transforms import check_transforms, clean_label

register_extensions()

DEFAULT_CONFIG = """
[model]
@architectures = "spacy-planar.BiaffineModel.v2"
arc_width = 400
label_width = 100
nO = null
# Stanza's linearization and distance scorers: +2.5 and +5.1 LAS on grc_ptnk and la_llct dev over three seeds
# (docs/decisions.md, 2026-12-03); the other probes' settings stay at the architecture's defaults
positional_width = 100

[scorer]
@scorers = "spacy-planar.parser_scorer.v1"
"""
DEFAULT_MODEL = default_model(DEFAULT_CONFIG)


@Language.factory(
    "biaffine_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": DEFAULT_MODEL["model"], "root_label": None, "extra_root_label": EXTRA_ROOT_LABEL,
                    # Eisner on pseudo-projective trees: +0.25 and +1.2 LAS on grc_ptnk and la_llct dev over three
                    # seeds (docs/decisions.md, 2026-12-04); in an ensemble such a biaffine votes with its tree
                    "tree_transforms": [], "decoder": "eisner", "pseudo_projective": "head+path",
                    "loss_per_word": False, "reparse_with": None,
                    "scorer": DEFAULT_MODEL["scorer"]},
    default_score_weights={
        "dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "dep_np_p": None, "dep_np_r": None,
        "dep_np_f": 0.0, "sents_p": None, "sents_r": None, "sents_f": 0.0,
    },
)
def make_biaffine_parser(nlp: Language, name: str, model: Model, root_label: Optional[str], extra_root_label: str,
                         tree_transforms: List[str], decoder: str, pseudo_projective: Optional[str],
                         loss_per_word: bool, reparse_with: Optional[str], scorer: Optional[Callable]):
    """A graph-based dependency parser (Dozat & Manning 2017): every
    (head, dependent) pair scored by a biaffine over the shared encoder, the
    best tree with one root decoded exactly, then each arc's label. By
    default it learns and decodes projective trees (Eisner), non-projective
    ones by their pseudo-projective encoding, as arc-eager does; with
    decoder "mst" and pseudo_projective None any tree, as they are (what an
    ensemble's reparse reads best: the arcs' probabilities). The options:

    root_label: the root's label; None: learned from the training data.
    extra_root_label: the label of what is attached without being parsed
        (whitespace tokens).
    tree_transforms: Nilsson's (2007) transforms, inverted on output.
    decoder: "mst" (any tree: Chu-Liu-Edmonds) or "eisner" (projective
        trees only: Eisner 1996).
    pseudo_projective: train on the pseudo-projective trees of this encoding
        (Nivre & Nilsson 2005: "head+path" as arc-eager's), deprojectivized
        on output; None: the trees as they are.
    loss_per_word: the loss and its gradient divided by the batch's words
        (Stanza's), not summed over them.
    reparse_with: gone (a pipeline saved before the joint pipeline's own decider,
        ``parse_decider``): a value other than None is one line (E167) naming
        ``spacy-planar upgrade``, which rewrites such a pipeline's config.

    In a joint pipeline a ``parse_decider`` after it reads its arcs' probabilities
    (``shared/handover.py``): it needs pseudo_projective None and no tree_transforms.
    """
    if reparse_with is not None:
        raise UserError(Errors.E167.format(name=name, other=reparse_with))
    return BiaffineParser(nlp.vocab, model, name, root_label=root_label, extra_root_label=extra_root_label,
                          tree_transforms=tree_transforms, decoder=decoder, pseudo_projective=pseudo_projective,
                          loss_per_word=loss_per_word, scorer=scorer)


class GraphUnit(NamedTuple):
    """``BiaffineParser.predict``'s parse of one unit: its (start, end), its tree (heads 1-based,
    labels), each token's probability of its head and label, and where a decider listens the
    batch's ``ArcVotes`` and the unit's index there."""
    span: Tuple[int, int]
    tree: Tree
    probs: np.ndarray
    votes: Optional[ArcVotes] = None
    unit: int = -1


class GraphEncoding:
    """What ``TreeCodec`` asks of a system, for a graph-based parser: its trees as they are, or
    with ``encoding`` their pseudo-projective trees (Nivre & Nilsson 2005), deprojectivized back."""

    name = "biaffine"

    def __init__(self, encoding: Optional[str] = None):
        self.encoding = None if encoding is None else check_encoding(encoding)

    def prepare_tree(self, heads, labels) -> Tree:
        if self.encoding is None:
            return list(heads), list(labels)
        out = projectivize(heads, labels, self.encoding)
        return out.heads, out.labels

    def decode_tree(self, heads, labels) -> Tree:
        return (heads, labels) if self.encoding is None else deprojectivize(heads, labels, self.encoding)


# learned with the weights: a value given at load must be the saved one (the labels' encoding and the trees'
# transforms decide what the decorated labels mean; the root label is a label like the others)
GRAPH_TRAINED = ("pseudo_projective", "tree_transforms", "root_label")


@dataclass
class GraphSettings:
    """Every setting of one ``biaffine_parser``: its options, and what it learns (labels, the
    root label), saved as the component's cfg."""
    root_label: str
    extra_root_label: str
    tree_transforms: List[str]
    decoder: str
    pseudo_projective: Optional[str]
    loss_per_word: bool
    learn_root_label: bool = False
    labels: List[str] = field(default_factory=list)
    single_root: bool = True  # the decoder's constraint (the codec reads it)

    def to_dict(self) -> Dict:
        out = asdict(self)
        out.pop("learn_root_label")
        return out

    def load(self, name: str, saved: Dict) -> None:
        """Take a saved pipeline's learned settings (labels, the root label); a trained setting
        given at load (``GRAPH_TRAINED``) that is not the saved one is a one-line error (E139),
        as the transition parser's (``ParserSettings.load``); the decoder, an option, is honoured."""
        for key in GRAPH_TRAINED:
            given = getattr(self, key)
            if key in saved and given != saved[key] and not (key == "root_label" and self.learn_root_label):
                raise UserError(Errors.E139.format(name=name, key=key, given=given, saved=saved[key]))
        for key in ("root_label", "labels"):
            if key in saved:
                setattr(self, key, saved[key])
        self.learn_root_label = False


class BiaffineParser(ParserPipe, TrainablePipe):
    """The graph-based parser: a thin layer over ``scoring.py`` and the model."""

    def __init__(self, vocab, model: Model, name: str, *, root_label: Optional[str], extra_root_label: str,
                 tree_transforms: Sequence[str], decoder: str, pseudo_projective: Optional[str],
                 loss_per_word: bool, scorer: Optional[Callable]):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        if decoder not in graph.DECODERS:
            raise UserError(Errors.E134.format(what="biaffine_parser decoder", value=decoder,
                                               rule=" or ".join(graph.DECODERS)))
        self.settings = GraphSettings(root_label=root_label or ROOT_LABEL, learn_root_label=root_label is None,
                                      extra_root_label=extra_root_label,
                                      tree_transforms=check_transforms(list(tree_transforms)), decoder=decoder,
                                      pseudo_projective=pseudo_projective, loss_per_word=loss_per_word)
        self.codec = TreeCodec(GraphEncoding(pseudo_projective), self.settings)
        self.gold = GoldTrees(self.settings)
        self.repaired: Counter = Counter()  # what output_trees had to repair (never expected: MST gives trees)
        self.teachers: Optional[HeadTargets] = None  # where initialize is given a teacher
        self.handover = Handover()  # each sentence's arcs for the decider after it (``parse_decider``)

    @property
    def labels(self) -> Tuple[str, ...]:
        s = self.settings
        return tuple(sorted({clean_label(label) for label in s.labels} | {s.root_label}))

    @property
    def skipped(self):
        return self.gold.skipped

    def _reset(self) -> None:
        """The labels changed: the model's label dimension follows at ``_resize``."""

    def _resize(self) -> None:
        """The model's label dimension from the settings' labels."""
        n = len(self.settings.labels)
        self.model.set_dim("nO", n, force=True)
        self.model.get_ref("biaffine").set_dim("nO", n, force=True)

    # --- training -----------------------------------------------------------------------------
    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Sequence[str]] = None, teachers: Optional[Callable] = None,
                   teacher_weight: float = 1.0) -> None:
        """The labels and the root label from the training data, and the model. ``teachers``: a
        teacher of heads (``spacy-planar.ensemble_heads.v1``: trained pipelines as one), asked
        here for every training sentence's head distribution, which the arc loss learns mixed
        with the gold heads by ``teacher_weight`` (``graph/teachers.py``); set in
        ``[initialize.components.NAME]`` (``train --teacher``)."""
        validate_get_examples(get_examples, "BiaffineParser.initialize")
        roots: Counter = Counter()
        for eg in get_examples():
            if eg.reference.has_annotation("DEP"):
                roots.update(tok.dep_ for tok in eg.reference if tok.head.i == tok.i)
        settings = self.settings
        if roots and settings.learn_root_label:
            settings.root_label = roots.most_common(1)[0][0]
        found = set(labels or [])
        for eg in get_examples():
            for _, tree in self.gold.gold_trees(eg, self.codec) or []:
                found.update(self.codec.encode(tree)[1])
        settings.labels = sorted(found - {settings.root_label})
        self.teachers = self._teachers(get_examples, teachers, teacher_weight) if teachers else None
        self._resize()
        self.model.initialize(X=[eg.predicted for eg, _ in zip(get_examples(), range(10))])

    def _teachers(self, get_examples: Callable, teacher: Callable, weight: float) -> HeadTargets:
        """The teacher's targets of the training sentences (the gold units' words)."""
        if self.settings.tree_transforms:
            raise UserError(Errors.E138.format(path="teachers", reason="the teachers give heads of the trees as "
                                               "they are, which the student's tree_transforms change: train it "
                                               "without them"))
        sentences = (tuple(t.text for t in eg.predicted[start:end]) for eg in get_examples()
                     for (start, end), _ in self.gold.gold_trees(eg, self.codec) or [])
        return HeadTargets(teacher, self.vocab, sentences, weight, self.name)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One batched update: every word's head and every arc's label, against the gold tree
        (``graph.training_loss``), through one pass of the encoder."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "BiaffineParser.update")
        self._step_words = sum(len(eg.predicted) for eg in examples)
        label_id = {label: i for i, label in enumerate(self.settings.labels)}
        sentences: List[graph.Gold] = []
        targets: List[Optional[np.ndarray]] = []
        offset = 0
        for eg in examples:
            for (start, end), tree in self.gold.gold_trees(eg, self.codec) or []:
                heads, labels = self.codec.encode(tree)
                sentences.append((offset + start, heads, [self._label_id(label_id, lab) if h else -1
                                                          for h, lab in zip(heads, labels)]))
                if self.teachers is not None:  # the arcs the encoding lifted learn their gold head alone
                    kept = [h == g for h, g in zip(heads, tree[0])]
                    targets.append(self.teachers.of([t.text for t in eg.predicted[start:end]], heads, kept))
            offset += len(eg.predicted)
        if not sentences:
            return losses
        set_dropout_rate(self.model, drop)
        scorer, backprop = self.model.begin_update([eg.predicted for eg in examples])
        untaught = sum(t is None for t in targets)
        if untaught:  # never expected: the teachers were asked about every training sentence
            unexpected(Warnings.W127.format(name=self.name, count=untaught))
        d_rows, loss = graph.training_loss(scorer, sentences, targets or None)
        if self.settings.loss_per_word:
            words = sum(len(heads) for _, heads, _ in sentences)
            d_rows, loss = d_rows / words, loss / words
        backprop(d_rows)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def _label_id(self, label_id: Dict[str, int], label: str) -> int:
        """A gold label's id; one not seen at ``initialize`` is an error (E118, as the transition
        parser's), never trained as no label."""
        if label not in label_id:
            raise UserError(Errors.E118.format(system=self.name, label=label, n=len(label_id)))
        return label_id[label]

    def get_loss(self, examples, scores):
        raise NotImplementedError("BiaffineParser computes its loss inside update()")

    # --- parsing --------------------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> List[List["GraphUnit"]]:
        """Per Doc, each unit's parse (``GraphUnit``): the units' words without whitespace decoded
        together (``graph.decode``), whitespace attached after (``parsing.with_whitespace``);
        where a decider listens, decoded from the arcs' probabilities it reads (``votes.ArcVotes``)."""
        docs = list(docs)
        found = [(k, s, e) for k, doc in enumerate(docs) for s, e in units(doc)]
        out: List[List] = [[] for _ in docs]
        if not found:
            return out
        scorer = self.model.predict(docs)
        if self.handover.listening:
            votes = ArcVotes(self, docs, found, scorer=scorer)
            for u, ((k, start, end), (heads, labels, probs)) in enumerate(zip(found, votes.trees())):
                out[k].append(GraphUnit((start, end), (heads, labels), probs, votes, u))
            return out
        words, rows, kept = unit_words(docs, found)
        if kept is not None:  # the parse reads the other words only
            scorer = scorer.restricted(kept)
        parsed = [(row, len(w)) for w, row in zip(words, rows) if len(w)]
        decoded = iter(graph.decode(scorer, [r for r, _ in parsed], [n for _, n in parsed],
                                    decoder=self.settings.decoder))
        s = self.settings
        for (k, start, end), w in zip(found, words):
            heads, label_ids, probs = next(decoded) if len(w) else ([], [], np.zeros(0))
            labels = [s.labels[i] if i >= 0 else s.root_label for i in label_ids]
            tree = with_whitespace((heads, labels), w, end - start, s.extra_root_label, s.root_label)
            token_probs = np.ones(end - start)
            token_probs[w] = probs
            out[k].append(GraphUnit((start, end), tree, token_probs))
        return out

    def set_annotations(self, docs: Iterable[Doc], predictions: List[List["GraphUnit"]]) -> None:
        """Heads and labels of every unit (``codec.TreeCodec.output_trees``: the inverse
        transforms, checked), and each word's probability of its head and label
        (``Token._.head_prob``); where a decider listens, each unit's parse handed over to it
        (``shared/handover.py``: ``GraphParse``) and its tree in ``Doc._.trees``."""
        docs = list(docs)
        trees = [[Parsed(unit.span, unit.tree) for unit in doc_units] for doc_units in predictions]
        out = self.codec.output_trees(trees, self.name, self.repaired)
        if out.lengths:
            set_trees(docs, out.heads, out.labels, out.lengths)
        repaired = iter(out.repaired)
        for doc, doc_units in zip(docs, predictions):
            probs = [None] * len(doc)
            handed = []
            for unit in sorted(doc_units, key=lambda unit: unit.span):
                start, end = unit.span
                probs[start:end] = np.round(unit.probs, HEAD_PROB_DECIMALS).tolist()
                fixed = next(repaired)
                if unit.votes is not None:
                    handed.append(GraphParse(unit.span, [int(h) for h in unit.tree[0]], list(unit.tree[1]),
                                             unit.votes, unit.unit, fixed))
            doc.user_data[HEAD_PROBS_KEY] = probs
            if self.handover.listening:
                self.handover.put(doc, handed)
                set_own_trees(doc, self.name, handed)

    def _load_cfg(self, cfg: dict) -> None:
        self.settings.load(self.name, cfg)
