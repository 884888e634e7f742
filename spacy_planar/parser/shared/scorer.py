"""The registered scorer: spaCy's dependency scores plus precision, recall and
F on non-projective arcs (as ``metrics.py``: recall over the arcs that are
non-projective in the gold tree, precision over those non-projective in the
parser's tree; unlabeled; every word counted)."""
from __future__ import annotations

from typing import Any, Dict, Iterable

from spacy.scorer import Scorer
from spacy.training import Example
from spacy.util import registry

from spacy_planar.eval.metrics import Scores
from spacy_planar.io.doc_trees import sentence_scores, span_tree


def planar_parser_score(examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
    examples = list(examples)

    def dep_getter(token, attr):  # spaCy's getter: the attribute by the name Scorer.score_deps gives
        return token.vocab.strings.as_string(getattr(token, attr)).lower()

    results: Dict[str, Any] = {}
    results.update(sentence_scores(examples, **kwargs))  # the splitter's own sentences, as the senter scores them
    kwargs.setdefault("getter", dep_getter)
    kwargs.setdefault("ignore_labels", ("p", "punct"))
    results.update(Scorer.score_deps(examples, "dep", **kwargs))
    scores = Scores()
    for eg in examples:
        x, y = eg.predicted, eg.reference
        if not (y.has_annotation("DEP") and x.has_annotation("DEP")) or len(x) != len(y):
            continue
        if any(a.text != b.text for a, b in zip(x, y)):
            continue
        scores.add(span_tree(y), span_tree(x))
    figures = scores.as_dict()
    results["dep_np_p"] = figures["NP_P_U"] / 100
    results["dep_np_r"] = figures["NP_R_U"] / 100
    results["dep_np_f"] = figures["NP_F_U"] / 100
    return results


@registry.scorers("spacy-planar.parser_scorer.v1")
def make_planar_parser_scorer():
    return planar_parser_score
