"""``lexicon_lemmatizer``: spaCy's trainable lemmatizer (edit trees), which
for a word form seen in training chooses among the edit trees seen for it.

spaCy's ``trainable_lemmatizer`` (Müller et al. 2015's edit trees) scores
every edit tree for every word and takes the best one that applies. On a
small treebank it errs on words it has seen: on Old Church Slavonic dev
(cu_proiel) it got 91.8% of the seen forms' lemmas, where the training
data's most frequent lemma of each form gets 98.4%, and UDPipe 1 (whose
dictionary of the training data's analyses restricts the tagger's choice)
94.8%. This component keeps spaCy's model, trees, loss and backoff, and adds
UDPipe's restriction: a form seen in training (``cfg["lexicon"]``: each form's
edit trees among the labels, saved with the component) takes the
best-scored of its own trees, so context still chooses between a form's
lemmas; an unseen form is lemmatized as spaCy's component does.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional

import numpy as np
from spacy.language import Language
from spacy.pipeline.edit_tree_lemmatizer import DEFAULT_EDIT_TREE_LEMMATIZER_MODEL, EditTreeLemmatizer
from spacy.pipeline.lemmatizer import lemmatizer_score
from spacy.training import Example
from thinc.api import Model


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


class LexiconLemmatizer(EditTreeLemmatizer):
    """spaCy's ``EditTreeLemmatizer`` whose seen forms choose among their own edit trees."""

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Dict] = None) -> None:
        """spaCy's initialization (the edit trees, the model), then the
        lexicon: each training form's edit trees, as labels."""
        super().initialize(get_examples, nlp=nlp, labels=labels)
        lexicon: Dict[str, set] = {}
        for eg in get_examples():
            for token in eg.reference:
                if token.lemma != 0:
                    label = self._pair2label(token.text, token.lemma_)
                    if label is not None:
                        lexicon.setdefault(token.text, set()).add(label)
        self.cfg["lexicon"] = {form: sorted(found) for form, found in sorted(lexicon.items())}

    def _scores2guesses_top_k_equals_1(self, docs, scores) -> List[np.ndarray]:
        """Per word, the tree id: a seen form's best-scored own tree; any
        other word's as spaCy's component chooses it (the best tree, if it
        applies; -1: the backoff)."""
        lexicon = self.cfg.get("lexicon", {})
        guesses = super()._scores2guesses_top_k_equals_1(docs, scores)
        labels = self.cfg["labels"]
        for doc, doc_scores, doc_guesses in zip(docs, scores, guesses):
            doc_scores = self.numpy_ops.asarray(doc_scores)
            for i, token in enumerate(doc):
                own = lexicon.get(token.text)
                if own:
                    doc_guesses[i] = labels[own[int(np.argmax(doc_scores[i, own]))]]
        return guesses
