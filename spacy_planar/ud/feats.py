"""``feature_morphologizer``: UPOS and each FEATS attribute predicted apart,
as Stanza's tagger does (Qi et al. 2020, section 2.2: one classifier per
UFeats attribute, "none" among its values), where spaCy's ``morphologizer``
predicts a word's UPOS and FEATS as one tag among the combinations seen in
training. A word whose Case is right but whose Gender is wrong keeps its
Case, and a combination never seen in training can be predicted.

The model (``spacy-planar.FeatureTagger.v1``) scores, for each word, every
value of every attribute (UPOS one of them) in one linear layer over the
tok2vec; each attribute's values, "none" first, are a softmax of their own.
The loss is the sum of the attributes' cross-entropies; a word without
annotation (neither UPOS nor FEATS) adds nothing. It writes ``Token.pos``
and ``Token.morph``, and is scored as spaCy's morphologizer is
(``spacy.morphologizer_scorer.v1``: pos_acc, morph_acc, morph_per_feat).
"""
from __future__ import annotations

from itertools import islice
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy as np
from spacy.attrs import MORPH, POS
from spacy.language import Language
from spacy.morphology import Morphology
from spacy.parts_of_speech import IDS as POS_IDS
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Linear, Model, chain, set_dropout_rate, with_array
from thinc.types import Floats2d

from spacy_planar.errors import Errors, UserError

UPOS = "POS"  # the attribute name UPOS goes by among the FEATS attributes

DEFAULT_CONFIG = """
[model]
@architectures = "spacy-planar.FeatureTagger.v1"
nO = null

[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true

[scorer]
@scorers = "spacy.morphologizer_scorer.v1"
"""


@registry.architectures("spacy-planar.FeatureTagger.v1")
def build_feature_tagger(tok2vec: Model[List[Doc], List[Floats2d]], nO: Optional[int] = None
                         ) -> Model[List[Doc], List[Floats2d]]:
    """Per word, a score for each value of each attribute (``nO`` in all,
    set by the component from its attributes): one linear layer over
    ``tok2vec``."""
    output = Linear(nO=nO)
    model = chain(tok2vec, with_array(output))
    model.set_ref("output_layer", output)
    return model


@Language.factory("feature_morphologizer", default_config=Config().from_str(DEFAULT_CONFIG),
                  default_score_weights={"pos_acc": 0.5, "morph_acc": 0.5, "morph_per_feat": None})
def make_feature_morphologizer(nlp: Language, name: str, model: Model, scorer: Optional[Callable]
                               ) -> "FeatureMorphologizer":
    return FeatureMorphologizer(nlp.vocab, model, name, scorer=scorer)


class FeatureMorphologizer(TrainablePipe):
    """UPOS and each FEATS attribute, one softmax each (the module
    docstring). ``cfg["attributes"]``: attribute -> its values, "" (none)
    first, as ``initialize`` found them in the training data."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "feature_morphologizer", *,
                 scorer: Optional[Callable] = None):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg: Dict = {"attributes": {}}
        self._columns: Optional[Tuple] = None

    # --- the attributes ----------------------------------------------------------------
    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(f"{attr}={value}" for attr, values in self.cfg["attributes"].items() for value in values[1:])

    @property
    def columns(self) -> Tuple[List[str], np.ndarray, Dict[str, Dict[str, int]]]:
        """(attributes, the first score column of each and one past the last,
        each attribute's value -> its index)."""
        if self._columns is None:
            attrs = list(self.cfg["attributes"])
            sizes = [len(self.cfg["attributes"][a]) for a in attrs]
            index = {a: {v: i for i, v in enumerate(self.cfg["attributes"][a])} for a in attrs}
            self._columns = (attrs, np.cumsum([0] + sizes), index)
        return self._columns

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp=None, labels=None) -> None:
        validate_get_examples(get_examples, "FeatureMorphologizer.initialize")
        if labels is None:
            found: Dict[str, set] = {UPOS: set()}
            for eg in get_examples():
                for token in eg.reference:
                    if token.pos_:
                        found[UPOS].add(token.pos_)
                    for attr, value in Morphology.feats_to_dict(str(token.morph)).items():
                        found.setdefault(attr, set()).add(value)
            labels = {attr: [""] + sorted(values) for attr, values in found.items() if values}
        if not labels:
            raise UserError(Errors.E127.format(name=self.name))
        self.cfg["attributes"] = {attr: list(values) for attr, values in sorted(labels.items())}
        self._columns = None
        n_out = int(self.columns[1][-1])
        self.model.get_ref("output_layer").set_dim("nO", n_out, force=True)
        docs = [eg.reference for eg in islice(get_examples(), 10)]
        self.model.initialize(X=docs, Y=[self.model.ops.alloc2f(len(doc), n_out) for doc in docs])

    @property
    def label_data(self) -> Dict:
        return self.cfg["attributes"]

    # --- training ----------------------------------------------------------------------
    def gold(self, eg: Example) -> np.ndarray:
        """[words, attributes]: each word's value index per attribute, -1
        where the word has no annotation (neither UPOS nor FEATS, or it does
        not align) or the value was not seen at ``initialize``."""
        attrs, _, index = self.columns
        pos_tags = eg.get_aligned("POS", as_string=True)
        morphs = eg.get_aligned("MORPH", as_string=True)
        out = np.full((len(morphs), len(attrs)), -1, dtype=np.int64)
        for i, (pos, morph) in enumerate(zip(pos_tags, morphs)):
            if pos is None or morph is None or (pos == "" and morph == ""):
                continue
            feats = Morphology.feats_to_dict(morph)
            feats[UPOS] = pos
            out[i] = [index[a].get(feats.get(a, ""), -1) for a in attrs]
        return out

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None, losses=None) -> Dict[str, float]:
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "FeatureMorphologizer.update")
        if not any(len(eg.predicted) for eg in examples):
            return losses
        set_dropout_rate(self.model, drop)
        scores, backprop = self.model.begin_update([eg.predicted for eg in examples])
        loss, d_scores = self.get_loss(examples, scores)
        backprop(d_scores)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples: Iterable[Example], scores: List[Floats2d]) -> Tuple[float, List[Floats2d]]:
        """The attributes' summed cross-entropy and its gradient, Doc by Doc."""
        ops = self.model.ops
        _, bounds, _ = self.columns
        loss, grads = 0.0, []
        for eg, doc_scores in zip(examples, scores):
            gold = self.gold(eg)
            d_scores = ops.alloc2f(*doc_scores.shape)
            for a, (start, end) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
                rows = np.flatnonzero(gold[:, a] >= 0)
                if not len(rows):
                    continue
                probs = ops.softmax(doc_scores[ops.asarray(rows), start:end])
                target = ops.asarray(gold[rows, a])
                right = probs[ops.xp.arange(len(rows)), target]
                loss -= float(ops.xp.log(ops.xp.maximum(right, 1e-12)).sum())
                probs[ops.xp.arange(len(rows)), target] -= 1.0
                d_scores[ops.asarray(rows), start:end] = probs
            grads.append(d_scores)
        return loss, grads

    # --- parsing -----------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> List[np.ndarray]:
        """Per Doc, [words, attributes]: the best value index of each attribute."""
        docs = list(docs)
        if not any(len(doc) for doc in docs):
            return [np.zeros((len(doc), len(self.columns[0])), dtype=np.int64) for doc in docs]
        _, bounds, _ = self.columns
        out = []
        for doc_scores in self.model.predict(docs):
            doc_scores = self.model.ops.to_numpy(doc_scores)
            out.append(np.stack([doc_scores[:, s:e].argmax(axis=1) for s, e in zip(bounds[:-1], bounds[1:])], axis=1)
                       if len(doc_scores) else np.zeros((0, len(bounds) - 1), dtype=np.int64))
        return out

    def set_annotations(self, docs: Iterable[Doc], predictions: List[np.ndarray]) -> None:
        """UPOS and FEATS of every word, written Doc by Doc (one array each):
        each distinct row of values becomes its POS id and MORPH key once."""
        attrs, _, _ = self.columns
        values = [self.cfg["attributes"][a] for a in attrs]
        upos = attrs.index(UPOS) if UPOS in attrs else None
        for doc, rows in zip(docs, predictions):
            if not len(rows):
                continue
            distinct, which = np.unique(rows, axis=0, return_inverse=True)
            keys = np.zeros((len(distinct), 2), dtype=np.uint64)
            for k, row in enumerate(distinct.tolist()):
                feats = {a: values[j][v] for j, (a, v) in enumerate(zip(attrs, row)) if j != upos and v > 0}
                keys[k, 0] = POS_IDS.get(values[upos][row[upos]], 0) if upos is not None else 0
                keys[k, 1] = self.vocab.morphology.add(feats)
            doc.from_array([POS, MORPH], keys[which.reshape(-1)])

    # --- serialization: TrainablePipe's (cfg and model); the column cache follows cfg ----
    def from_bytes(self, bytes_data, *, exclude=tuple()):
        self._columns = None
        return super().from_bytes(bytes_data, exclude=exclude)

    def from_disk(self, path, *, exclude=tuple()):
        self._columns = None
        return super().from_disk(path, exclude=exclude)
