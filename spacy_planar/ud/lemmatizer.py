"""``lexicon_lemmatizer``: spaCy's trainable lemmatizer (edit trees), which
chooses a word's edit tree among those the training data gives its form, or
the longest ending it shares with training forms.

spaCy's ``trainable_lemmatizer`` (Müller et al. 2015's edit trees) scores
every edit tree for every word and takes the best one that applies. On a
small treebank it errs on the words it has seen: on Old Church Slavonic dev
(cu_proiel) it got 91.8% of the seen forms' lemmas, where the training
data's most frequent lemma of each form gets 98.4% and UDPipe 1 (whose
dictionary of the training data's analyses restricts its tagger's choice)
94.8%; and on unseen forms it got 17%, UDPipe's suffix guesser 29%. This
component keeps spaCy's model, trees, loss and backoff, and restricts the
choice as UDPipe does: a form seen in training (``cfg["lexicon"]``) takes
the best-scored of its own edit trees; another word, the best-scored of the
trees of the training forms that share its longest ending (up to
``SUFFIX`` characters, ``cfg["suffixes"]``) and apply to it; a word with
neither, spaCy's choice. Context still chooses among a form's lemmas. The
tables are the component's learned data, saved with it.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional

import numpy as np
from spacy.language import Language
from spacy.pipeline.edit_tree_lemmatizer import DEFAULT_EDIT_TREE_LEMMATIZER_MODEL, EditTreeLemmatizer
from spacy.pipeline.lemmatizer import lemmatizer_score
from spacy.training import Example
from thinc.api import Model

from spacy_planar.model.per_word import doc_arrays


@Language.factory(
    "lexicon_lemmatizer",
    assigns=["token.lemma"],
    requires=[],
    default_config={"model": DEFAULT_EDIT_TREE_LEMMATIZER_MODEL, "backoff": "orth", "min_tree_freq": 3,
                    "overwrite": False, "top_k": 1, "scorer": {"@scorers": "spacy.lemmatizer_scorer.v1"}},
    default_score_weights={"lemma_acc": 1.0},
)
def make_lexicon_lemmatizer(nlp: Language, model: Model, name: str, backoff: Optional[str], min_tree_freq: int,
                            overwrite: bool, top_k: int, scorer: Optional[Callable]) -> "LexiconLemmatizer":
    """spaCy's ``trainable_lemmatizer`` (its options), with the lexicon of
    the training data's forms (see the module's text)."""
    return LexiconLemmatizer(nlp.vocab, model, name, backoff=backoff, min_tree_freq=min_tree_freq,
                             overwrite=overwrite, top_k=top_k, scorer=scorer or lemmatizer_score)


SUFFIX = 5  # the longest ending of a form that chooses an unseen form's trees (cu_proiel dev: 3 -> 5, +0.4)


class LexiconLemmatizer(EditTreeLemmatizer):
    """spaCy's ``EditTreeLemmatizer`` choosing among the trees of a word's form or of its ending."""

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Dict] = None) -> None:
        """spaCy's initialization (the edit trees, the model), then the
        tables: each training form's edit trees, and each ending's (of 1 to
        ``SUFFIX`` characters, shorter than the form), as labels."""
        super().initialize(get_examples, nlp=nlp, labels=labels)
        lexicon: Dict[str, set] = {}
        suffixes: Dict[str, set] = {}
        for eg in get_examples():
            for token in eg.reference:
                if token.lemma != 0:
                    label = self._pair2label(token.text, token.lemma_)
                    if label is not None:
                        lexicon.setdefault(token.text, set()).add(label)
                        for k in range(1, min(SUFFIX, len(token.text) - 1) + 1):
                            suffixes.setdefault(token.text[-k:], set()).add(label)
        self.cfg["lexicon"] = {form: sorted(found) for form, found in sorted(lexicon.items())}
        self.cfg["suffixes"] = {end: sorted(found) for end, found in sorted(suffixes.items())}

    def from_disk(self, path, exclude=tuple()) -> "LexiconLemmatizer":
        super().from_disk(path, exclude=exclude)
        return self._with_tree2label()

    def from_bytes(self, bytes_data, *, exclude=tuple()) -> "LexiconLemmatizer":
        super().from_bytes(bytes_data, exclude=exclude)
        return self._with_tree2label()

    def _with_tree2label(self) -> "LexiconLemmatizer":
        """The label of each edit tree, rebuilt from the labels just loaded.
        spaCy's ``EditTreeLemmatizer`` (3.8) loads the labels but not this
        map, and its loss takes label 0 for every tree it cannot find: a
        loaded lemmatizer trained further (``train``'s target stage, a
        sourced component) learned to give each word the first tree
        (la_llct dev: lemmas 96.9 -> 94.8 in the first 200 steps)."""
        self.tree2label = {tree: label for label, tree in enumerate(self.cfg["labels"])}
        return self

    def _scores2guesses_top_k_equals_1(self, docs, scores) -> List[np.ndarray]:
        """Per word, the tree id: the best-scored of the trees its form has
        in the lexicon, or else of those of its longest ending that apply to
        it, or else spaCy's choice (the best tree, if it applies; -1: the
        backoff). A form's candidates are found once a batch; each Doc's
        choice among them is one gather and one argmax."""
        lexicon, suffixes, labels = self.cfg.get("lexicon", {}), self.cfg.get("suffixes", {}), self.cfg["labels"]
        lengths = [len(doc) for doc in docs]
        forms, inverse = np.unique(doc_arrays(docs, ["ORTH"])[:, 0], return_inverse=True)
        strings = docs[0].vocab.strings if docs else None
        texts = [strings[int(orth)] for orth in forms]
        found = [lexicon.get(text) or self._ending_candidates(text, suffixes, labels) for text in texts]
        table = np.full((len(forms), max(map(len, found), default=0) or 1), -1, dtype=np.int64)  # candidates; -1 none
        for row, candidates in enumerate(found):
            table[row, :len(candidates)] = candidates
        tree_ids = np.asarray(labels, dtype=np.int64)
        guesses = []
        for start, n, doc_scores in zip(np.cumsum([0] + lengths[:-1]).tolist(), lengths, scores):
            doc_scores = self.numpy_ops.asarray(doc_scores)
            words = inverse.reshape(-1)[start:start + n]
            own = table[words]
            among = np.where(own >= 0, np.take_along_axis(doc_scores, np.maximum(own, 0), axis=1), -np.inf)
            chosen = own[np.arange(n), among.argmax(axis=1)] if n else own[:, 0]
            doc_guesses = np.where(chosen >= 0, tree_ids[np.maximum(chosen, 0)], -1)
            for i in np.flatnonzero(chosen < 0).tolist():  # spaCy's choice: the best tree, if it applies
                tree = labels[int(doc_scores[i].argmax())]
                doc_guesses[i] = tree if self.trees.apply(tree, texts[words[i]]) is not None else -1
            guesses.append(doc_guesses)
        return guesses

    def _ending_candidates(self, form: str, suffixes: Dict[str, List[int]], labels: List) -> List[int]:
        """The labels of the longest ending ``form`` shares with training forms whose trees apply to it
        (none: spaCy's choice)."""
        for k in range(min(SUFFIX, len(form) - 1), 0, -1):
            found = [label for label in suffixes.get(form[-k:], ())
                     if self.trees.apply(labels[label], form) is not None]
            if found:
                return found
        return []
