"""The ``planar_parser`` pipeline component: a thin spaCy layer over the
transition systems (``systems/``) and the model (``architectures.py``).

Parsing: the Docs of a batch are cut into units (the sentences set by an
earlier component, or else whole Docs), all units are parsed together on the
batched core, each transition scoring every live state at once; the trees
are decoded (arc-eager: ``deprojectivize``) and written to ``Token.head`` /
``Token.dep_``, which also sets the sentence boundaries (one per root).

Training: the static oracle's transitions and feature tokens of each unit
are computed once and cached (keyed by the words and the gold tree), then the
model scores all the transitions of a batch in one pass; units trained with
exploration are parsed with the current model first (``exploration_run``).
"""

from collections import Counter
from itertools import islice
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import srsly
from spacy import util
from spacy.attrs import DEP, HEAD, ORTH
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from thinc.api import Config, Model, set_dropout_rate

from . import _kernels, architectures, registrations  # noqa: F401  (registered functions)
from .pseudoproj import undecorate
from .registrations import SystemSpec
from .scorer import planar_parser_score
from .systems import TransitionSystem
from .systems.base import Tree, batches, exploration_run, oracle_run, oracle_targets
from .systems.state import INT, Gold
from .trees import are_trees, is_projective, tree_error

DEFAULT_CONFIG = """
[model]
@architectures = "spacy-planar.PlanarParserModel.v1"
hidden_width = 64
maxout_pieces = 2

[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true

[transition_system]
@transition_systems = "spacy-planar.two_planar.v1"

[scorer]
@scorers = "spacy-planar.parser_scorer.v1"
"""
DEFAULT_MODEL = Config().from_str(DEFAULT_CONFIG)


@Language.factory(
    "planar_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={
        "model": DEFAULT_MODEL["model"],
        "transition_system": DEFAULT_MODEL["transition_system"],
        "single_root": False,
        "root_label": None,
        "extra_root_label": "dep",
        "exploration": 0.0,
        "exploration_nonprojective": None,
        "exploration_keep_order": False,
        "scorer": DEFAULT_MODEL["scorer"],
    },
    default_score_weights={
        "dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "dep_np_p": None, "dep_np_r": None,
        "dep_np_f": 0.0, "sents_p": None, "sents_r": None, "sents_f": 0.0,
    },
)
def make_planar_parser(nlp: Language, name: str, model: Model, transition_system: SystemSpec, single_root: bool,
                       root_label: Optional[str], extra_root_label: str, exploration: float,
                       exploration_nonprojective: Optional[float], exploration_keep_order: bool,
                       scorer: Optional[Callable]):
    """A dependency parser whose transition system is chosen in the config:
    arc-eager with pseudo-projective encoding, planar, 2-planar or swap.

    single_root: give each sentence exactly one root (UD). The planar systems
        parse under the tree constraint (UNSHIFT: words left without a head
        when the buffer is empty go back to it and are attached by the model,
        as in Nivre & Fernández-González 2014 and spaCy's parser); any roots
        still left, and those of arc-eager, are attached to the largest tree
        with ``extra_root_label``.
    root_label: the label of root words; None: learned from the training data.
    exploration: training with exploration (Goldberg & Nivre 2012) on the
        system's dynamic oracle (exact for arc-eager, approximate for planar,
        2-planar and swap): the probability that a training parse follows the
        model's own prediction rather than a cheapest move; each state is
        trained towards its cheapest actions (2-planar: the static oracle's
        action where it is one of them). 0: the static oracle
        (cached transition sequences).
    exploration_nonprojective: the same probability for the sentences whose
        gold tree is non-projective; None: ``exploration``. Exploration
        lowered 2-planar's recall of non-projective arcs (Gothic: 23.1
        static, 19.5 exploring half the time); at 0 here those sentences
        are trained on the static oracle's cached transitions, as all are
        with ``exploration`` 0 (configs/two_planar.cfg).
    exploration_keep_order: while exploring, take from the static oracle,
        rather than from the model, the moves by which it builds a
        sentence's non-projective structure, where they cost nothing: swap's
        SWAPs (its order of the words; configs/swap.cfg) and 2-planar's
        SWITCHes and arcs of crossing links (its planes). Every other move
        explores. No effect on arc-eager and planar.
    """
    return PlanarParser(nlp.vocab, model, name, transition_system=transition_system, single_root=single_root,
                        root_label=root_label, extra_root_label=extra_root_label, exploration=exploration,
                        exploration_nonprojective=exploration_nonprojective,
                        exploration_keep_order=exploration_keep_order, scorer=scorer)


Unit = Tuple[int, int, int]  # (doc index, start, end)


class PlanarParser(TrainablePipe):
    """Non-projective transition-based dependency parser."""

    def __init__(self, vocab, model: Model, name: str = "planar_parser", *, transition_system: SystemSpec,
                 single_root: bool = False, root_label: Optional[str] = None, extra_root_label: str = "dep",
                 exploration: float = 0.0, exploration_nonprojective: Optional[float] = None,
                 exploration_keep_order: bool = False, scorer: Optional[Callable] = planar_parser_score):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.spec = transition_system
        self.scorer = scorer
        for option, value in (("exploration", exploration), ("exploration_nonprojective", exploration_nonprojective)):
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"[E061] {name}: {option} must be a probability, got {value}")
        self.cfg = {"labels": [], "root_label": root_label or "root", "single_root": single_root,
                    "extra_root_label": extra_root_label, "exploration": exploration,
                    "exploration_nonprojective": exploration_nonprojective,
                    "exploration_keep_order": bool(exploration_keep_order),
                    "system": transition_system.to_dict()}
        self._learn_root_label = root_label is None
        self._system: Optional[TransitionSystem] = None
        self._cache: Dict[int, List[Tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self._projective: Dict[Tuple[int, ...], bool] = {}
        self.skipped: Counter = Counter()
        # called after each parse step as observer(system, states, the actions just
        # applied (-1: none), token offsets naming the units), for diagnostics
        # (``spacy-planar stacks``); None in normal use
        self.observer: Optional[Callable] = None

    # --- the transition system and labels ---------------------------------------
    @property
    def system(self) -> TransitionSystem:
        if self._system is None:
            self._system = self.spec.make(self.cfg["labels"], self.cfg["root_label"])
            if self.cfg.get("features"):  # the templates the model was trained with
                self._system.features = tuple(self.cfg["features"])
                self._system.label_features = tuple(self.cfg.get("label_features", ()))
        return self._system

    @property
    def labels(self) -> Tuple[str, ...]:
        """The dependency labels, plain (pseudo-projective marks stay inside)."""
        return tuple(sorted({undecorate(l) for l in self.cfg["labels"]} | {self.cfg["root_label"]}))

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    def add_label(self, label: str) -> int:
        if label in self.cfg["labels"]:
            return 0
        self.cfg["labels"] = sorted(set(self.cfg["labels"]) | {label})
        self._system = None
        self._cache.clear()
        return 1

    def _resize(self) -> None:
        system = self.system
        self.model.get_ref("lower").set_dim("nF", len(system.features), force=True)
        self.model.get_ref("labels").set_dim("nL", len(system.label_features), force=True)
        self.model.get_ref("labels").set_dim("nV", len(system.labels) + 1, force=True)
        upper = self.model.get_ref("upper")
        if upper.has_param("W") and upper.get_dim("nO") != len(system.table):
            raise ValueError(f"[E060] {self.name}: the model has {upper.get_dim('nO')} actions but the "
                             f"transition system {len(system.table)}; labels cannot change after training starts")
        self.model.set_dim("nO", len(system.table), force=True)
        upper.set_dim("nO", len(system.table), force=True)

    # --- gold trees ------------------------------------------------------------------
    @staticmethod
    def units(doc: Doc) -> List[Tuple[int, int]]:
        """Parse units: the sentences set by an earlier component, else the Doc."""
        if len(doc) == 0:
            return []
        if doc.has_annotation("SENT_START") and not doc.has_annotation("DEP"):
            return [(s.start, s.end) for s in doc.sents]
        return [(0, len(doc))]

    def gold_trees(self, eg: Example) -> Optional[List[Tuple[Tuple[int, int], Tree]]]:
        """The gold tree of each unit of ``eg.predicted``, or None (counted in
        ``self.skipped``) where the reference has no parse or the tokens do not
        align."""
        x, y = eg.predicted, eg.reference
        if not y.has_annotation("DEP"):
            self.skipped["no gold parse"] += 1
            return None
        if len(x) == len(y) and np.array_equal(x.to_array(ORTH), y.to_array(ORTH)):
            arcs = y.to_array([HEAD, DEP])  # HEAD: the head's offset, as uint64
            heads = (np.arange(len(y)) + arcs[:, 0].astype(np.int64)).tolist()
            deps = [y.vocab.strings[d] for d in arcs[:, 1].tolist()]
        else:
            heads, deps = eg.get_aligned_parse(projectivize=False)
            if any(h is None for h in heads) or any(d is None for d in deps):
                self.skipped["tokenisation differs from the gold one"] += 1
                return None
        out = []
        for start, end in self.units(x):
            h = [0 if (heads[i] == i or not start <= heads[i] < end) else heads[i] - start + 1 for i in range(start, end)]
            d = [deps[i] if start <= heads[i] < end and heads[i] != i else self.cfg["root_label"] for i in range(start, end)]
            if tree_error(h) is not None:
                self.skipped["gold tree not well-formed"] += 1
                return None
            out.append(((start, end), (h, d)))
        return out

    def _oracle(self, docs: Sequence[Doc], units: Sequence[List[Tuple[Tuple[int, int], Tree]]]) -> List[List]:
        """Per Doc: a list of (start, features, label features, actions,
        valid moves), one per unit of ``units`` (its gold trees), from the
        cache or from one batched oracle run."""
        system = self.system
        todo: List[Tuple[int, int, Tree, int]] = []
        out: List[List] = []
        for k, (doc, trees) in enumerate(zip(docs, units)):
            if not trees:
                out.append([])
                continue
            key = hash((tuple(t.text for t in doc), tuple((u, tuple(h), tuple(d)) for u, (h, d) in trees)))
            if key in self._cache:
                out.append(self._cache[key])
                continue
            out.append([])
            for u, tree in trees:
                todo.append((k, u[0], system.prepare_tree(*tree), key))
        if todo:
            prepared = [t for _, _, t, _ in todo]
            chunks: List[Tuple[np.ndarray, ...]] = []  # (unit of each row, features, labels, actions, valid)
            for idx in batches([len(t[0]) for t in prepared], 256):
                for kind, payload in oracle_run(system, [prepared[i] for i in idx], with_features=True):
                    if kind == "step":
                        rows, feats, labs, actions, valid = payload
                        chunks.append((idx[rows], feats, labs, actions, valid))
            unit = np.concatenate([c[0] for c in chunks]) if chunks else np.zeros(0, dtype=INT)
            order = np.argsort(unit, kind="stable")  # by unit, each unit's steps in order
            arrays = [np.concatenate([c[j] for c in chunks])[order] if chunks else None for j in range(1, 5)]
            ends = np.cumsum(np.bincount(unit, minlength=len(todo)))
            for u, (k, start, _, _) in enumerate(todo):
                a, b = (ends[u - 1] if u else 0), ends[u]
                if a == b:
                    continue
                f, l, acts, v = (x[a:b] for x in arrays)
                out[k].append((start, f.astype(np.int32), l.astype(np.int32), acts.astype(INT), v.astype(bool)))
            for (k, _, _, key) in todo:
                self._cache[key] = out[k]
        return out

    # --- training ---------------------------------------------------------------------
    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Sequence[str]] = None) -> None:
        validate_get_examples(get_examples, "PlanarParser.initialize")
        roots: Counter = Counter()
        for eg in get_examples():
            for tok in eg.reference:
                if eg.reference.has_annotation("DEP") and tok.head.i == tok.i:
                    roots[tok.dep_] += 1
        if roots and self._learn_root_label:
            self.cfg["root_label"] = roots.most_common(1)[0][0]
        self._system = None
        probe = self.spec.make([], self.cfg["root_label"])
        found = set(labels or [])
        for eg in get_examples():
            trees = self.gold_trees(eg)
            for _, tree in trees or []:
                found.update(probe.prepare_tree(*tree)[1])
        self.cfg["labels"] = sorted(found - {self.cfg["root_label"]})
        self.cfg["features"] = list(probe.features)
        self.cfg["label_features"] = list(probe.label_features)
        self._system = None
        self._cache.clear()
        self._resize()
        sample = [eg.predicted for eg in islice(get_examples(), 10)]
        self.model.initialize(X=sample)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One batched update. Units trained with probability 0 of exploring
        (``exploration`` / ``exploration_nonprojective``) take the static
        oracle's cached transitions and are trained towards its action; the
        others are parsed with the current model (``exploration_run``) and
        trained towards their states' targets. One tok2vec pass, with dropout
        and gradient, serves both and the parse (a tok2vec listener only has
        outputs in training mode)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "PlanarParser.update")
        docs, starts, static, exploring = [], [], [], []
        offset = 0
        for eg in examples:
            units = self.gold_trees(eg)
            if not units:
                continue
            chances = [self._exploration_of(tree[0]) for _, tree in units]
            static.append([u for u, p in zip(units, chances) if p == 0.0])
            exploring.append([(u, p) for u, p in zip(units, chances) if p > 0.0])
            docs.append(eg.predicted)
            starts.append(offset)
            offset += len(eg.predicted)
        if not docs:
            return losses
        set_dropout_rate(self.model, drop)
        table, bp_table = architectures.table_forward(self.model, docs, is_train=True)
        steps = [self._static_steps(docs, static, starts)]
        if any(exploring):
            steps.append(self._exploring_steps(docs, table, exploring, starts))
        steps = [part for part in steps if part is not None]
        if not steps:
            return losses
        ids, labs, targets, valid = (np.concatenate(part) for part in zip(*steps))
        scores, bp_states = architectures.states_forward(self.model, table, ids, labs, is_train=True)
        d_scores, loss = self.get_loss_towards(scores, targets, valid)
        bp_table(bp_states(d_scores))
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def _exploration_of(self, heads: Sequence[int]) -> float:
        """The probability of exploring when training on this gold tree."""
        explore_np = self.cfg.get("exploration_nonprojective")
        if explore_np is None or self._is_projective(heads):
            return self.cfg["exploration"]
        return explore_np

    def _static_steps(self, docs: List[Doc], units: List[List], starts: List[int]) -> Optional[Tuple[np.ndarray, ...]]:
        """(feature tokens, label features, targets, valid actions) of the
        static oracle's states of ``units`` (per Doc, its units' gold trees;
        ``starts``: each Doc's first row in the batch's feature table), the
        oracle's action the one target of each."""
        ids, labs, actions, valid = [], [], [], []
        for doc_units, offset in zip(self._oracle(docs, units), starts):
            for start, f, l, a, v in doc_units:
                ids.append(np.where(f >= 0, f + offset + start, -1))
                labs.append(l)
                actions.append(a)
                valid.append(v)
        if not ids:
            return None
        targets, valid_actions = oracle_targets(self.system, np.concatenate(actions), np.concatenate(valid))
        return np.concatenate(ids), np.concatenate(labs), targets, valid_actions

    def _exploring_steps(self, docs: List[Doc], table, units: List[List], starts: List[int]) -> Tuple[np.ndarray, ...]:
        """The same for training with exploration (Goldberg & Nivre 2012):
        ``units`` (per Doc, (unit, probability of exploring) pairs) are parsed
        with the current model, following its prediction with that
        probability, else the best-scored target action, and every state is
        recorded with its targets (the system's ``exploration_targets``)."""
        system = self.system
        trees, offsets, follow = [], [], []
        for doc_units, offset in zip(units, starts):
            for ((start, _), tree), chance in doc_units:
                trees.append(system.label_tree(system.prepare_tree(*tree)))
                offsets.append(offset + start)
                follow.append(chance)
        scorer = architectures.StepScorer(self.model, docs, table=table)
        st = system.init_states([len(h) for h, _ in trees])
        gold = Gold.from_trees(trees, st.T)
        system.prepare_batch(st, gold)
        score = lambda f, l: self.model.ops.to_numpy(scorer(f, l))  # noqa: E731
        return exploration_run(system, st, gold, score, np.asarray(follow), np.asarray(offsets, dtype=INT),
                               keep_order=self.cfg["exploration_keep_order"])

    def _is_projective(self, heads: Sequence[int]) -> bool:
        """``trees.is_projective``, remembered per gold tree across epochs."""
        key = tuple(heads)
        if key not in self._projective:
            self._projective[key] = is_projective(heads)
        return self._projective[key]

    def _softmax_over(self, scores, valid):
        """Softmax of each row over its valid actions (0 elsewhere)."""
        xp = self.model.ops.xp
        masked = xp.where(valid, scores, -1e9)
        masked = masked - masked.max(axis=1, keepdims=True)
        probs = xp.exp(masked) * valid
        probs /= probs.sum(axis=1, keepdims=True)
        return probs

    def get_loss_towards(self, scores, targets: np.ndarray, valid: np.ndarray):
        """Softmax over the valid actions; cross-entropy with the set of
        target actions (the probability mass on any of them)."""
        ops = self.model.ops
        targets = ops.asarray(targets)
        probs = self._softmax_over(scores, ops.asarray(valid))
        on_target = (probs * targets).sum(axis=1, keepdims=True)
        loss = float(-ops.xp.log(on_target + 1e-12).sum())
        d_scores = probs - probs * targets / (on_target + 1e-12)
        return d_scores, loss

    def get_loss(self, examples, scores):
        raise NotImplementedError("PlanarParser computes its loss inside update()")

    # --- parsing -----------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> List[List[Tuple[Tuple[int, int], Tree]]]:
        docs = list(docs)
        units: List[Unit] = [(k, s, e) for k, doc in enumerate(docs) for s, e in self.units(doc)]
        out: List[List] = [[] for _ in docs]
        if not units:
            return out
        system = self.system
        scorer = architectures.StepScorer(self.model, docs)
        doc_start = np.cumsum([0] + [len(d) for d in docs])
        for idx in batches([e - s for _, s, e in units], 2048):
            group = [units[i] for i in idx]
            trees = self._parse_group(system, scorer, [e - s for _, s, e in group],
                                      np.array([doc_start[k] + s for k, s, _ in group], dtype=INT))
            for (k, s, e), tree in zip(group, trees):
                out[k].append(((s, e), tree))
        return out

    def _parse_group(self, system: TransitionSystem, scorer, lengths: List[int], offsets: np.ndarray) -> List[Tree]:
        """Greedy parse of units of the given lengths (their first tokens at
        ``offsets`` among the scorer's tokens); finished rows are dropped along the way."""
        st = system.init_states(lengths, finish=self.cfg["single_root"])
        index = np.arange(st.B)  # row of st -> unit
        trees: List[Optional[Tree]] = [None] * st.B
        dead = np.zeros(st.B, dtype=bool)
        while True:
            done = system.is_final(st) | dead
            if done.all() or done.sum() * 2 > st.B:
                for r, tree in zip(np.flatnonzero(done), system.output_trees(st, np.flatnonzero(done))):
                    trees[index[r]] = tree
                if done.all():
                    return trees
                keep = np.flatnonzero(~done)
                st, index, offsets, dead = st.select(keep), index[keep], offsets[keep], dead[keep]
                continue
            ids, labs = system.get_features(st, offsets)
            scores = self.model.ops.to_numpy(scorer(ids, labs))
            # the best valid action of each row (valid_actions, then argmax, in one C pass)
            actions = _kernels.best_actions(np.ascontiguousarray(scores, dtype="float32"),
                                            system.valid_moves(st).view(np.uint8), system.table.move_of,
                                            done.view(np.uint8))
            dead |= (actions < 0) & ~done  # never expected: a system always has a valid move
            system.apply(st, actions)
            if self.observer is not None:
                self.observer(system, st, np.where(done, -1, actions), offsets)

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        """Heads and labels of every unit (the units of a Doc tile it),
        checked as trees all at once, then written Doc by Doc."""
        docs = list(docs)
        all_heads: List[int] = []
        all_labels: List[str] = []
        lengths: List[int] = []
        for units in predictions:
            for _, (heads, labels) in sorted(units, key=lambda unit: unit[0]):
                if self.cfg["single_root"]:
                    heads, labels = self.one_root(heads, labels)
                all_heads.extend(heads)
                all_labels.extend(labels)
                lengths.append(len(heads))
        if not lengths:
            return
        heads = np.asarray(all_heads, dtype=np.int64)
        bounds = np.cumsum([0] + lengths)
        for u in np.flatnonzero(~are_trees(heads, lengths)):  # never expected; keep the Doc valid
            heads[bounds[u]:bounds[u + 1]] = 0
            all_labels[bounds[u]:bounds[u + 1]] = [self.cfg["root_label"]] * int(lengths[u])
        word = np.arange(len(heads)) - np.repeat(bounds[:-1], lengths)  # 0-based within its unit
        arr = np.empty((len(heads), 2), dtype="uint64")
        arr[:, 0] = np.where(heads == 0, 0, heads - 1 - word).astype("uint64")  # relative, two's complement
        strings = self.vocab.strings
        label_hash = {label: strings.add(undecorate(label)) for label in set(all_labels)}
        arr[:, 1] = [label_hash[label] for label in all_labels]
        start = 0
        for doc in docs:
            if len(doc):
                doc.from_array([HEAD, DEP], arr[start:start + len(doc)])
                start += len(doc)

    def one_root(self, heads: List[int], labels: List[str]) -> Tree:
        """Attach every root but the one of the largest tree to that one."""
        roots = [i + 1 for i, h in enumerate(heads) if h == 0]
        if len(roots) <= 1:
            return heads, labels
        size = Counter()
        for w in range(1, len(heads) + 1):
            r = w
            while heads[r - 1] != 0:
                r = heads[r - 1]
            size[r] += 1
        main = max(roots, key=lambda r: (size[r], -r))
        heads, labels = list(heads), list(labels)
        for r in roots:
            if r != main:
                heads[r - 1] = main
                labels[r - 1] = self.cfg["extra_root_label"]
        labels[main - 1] = self.cfg["root_label"]
        return heads, labels

    # --- serialization -------------------------------------------------------------
    def to_bytes(self, *, exclude=tuple()) -> bytes:
        serialize = {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "vocab": lambda: self.vocab.to_bytes(exclude=exclude),
            "model": lambda: self.model.to_bytes(),
        }
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        deserialize = {
            "cfg": lambda b: self._load_cfg(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
            "model": lambda b: None,
        }
        msg = util.from_bytes(bytes_data, deserialize, exclude)
        if "model" not in exclude and "model" in msg:
            self._resize()
            self.model.from_bytes(msg["model"])
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        serialize = {
            "cfg": lambda p: srsly.write_json(p, self.cfg),
            "vocab": lambda p: self.vocab.to_disk(p, exclude=exclude),
            "model": lambda p: self.model.to_disk(p),
        }
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path, *, exclude=tuple()):
        deserialize = {
            "cfg": lambda p: self._load_cfg(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
            "model": lambda p: None,
        }
        util.from_disk(path, deserialize, exclude)
        if "model" not in exclude:
            self._resize()
            with (util.ensure_path(path) / "model").open("rb") as f:
                self.model.from_bytes(f.read())
        return self

    # how to parse and train, set by the config (so that ``spacy.load(..., config=...)``
    # overrides them); the rest of cfg (labels, system) is what was learned
    OPTIONS = ("single_root", "extra_root_label", "exploration", "exploration_nonprojective",
               "exploration_keep_order")

    def _load_cfg(self, cfg: dict) -> None:
        self.cfg.update({k: v for k, v in cfg.items() if k not in self.OPTIONS})
        self._system = None
        self._cache.clear()

