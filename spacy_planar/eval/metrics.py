"""Evaluation with the papers' metrics, on head and label arrays.

UAS, LAS, unlabeled and labeled exact match, and precision / recall / F on
non-projective arcs (Gómez-Rodríguez & Nivre 2010, section 6; Nivre 2009):
recall over the arcs that are non-projective in the gold tree, precision over
the arcs that are non-projective in the system tree; an arc counts as right
when its dependent has the gold head (unlabeled) and also the gold label
(labeled). Every word is counted, punctuation included. Figures are
percentages; a ratio with nothing to count is 0.

``Scores.by_length`` breaks UAS and LAS down by the length of the gold arc,
|head - dependent|, the roots apart (as McDonald & Nivre 2007 break accuracy
down by dependency length): transition systems differ most on long arcs.
``Scores.long_arcs`` breaks the longest bin (7+) down further, by gold label
and by the side the head is on, to tell which constructions make up a
difference there (for example sentence-final punctuation, head far left).

``paired_bootstrap`` tells whether two systems' attachment scores over the
same sentences differ beyond chance (Koehn 2004's paired bootstrap over
sentences; Berg-Kirkpatrick et al. 2012 for parsing): ``compare`` runs it for
each system against the anchor, with each system's seeds averaged per
sentence.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.errors import Errors, UnexpectedError
from spacy_planar.trees.algorithms import Tree, nonprojective_arcs

# bins of gold arc lengths |head - dependent|; a root's arc has none
LENGTH_BINS = ("root", "1", "2", "3-6", "7+")
_LENGTH_EDGES = np.array([2, 3, 7])  # first length of bins 2, 3 and 4
LONG = len(LENGTH_BINS) - 1  # the bin of the long arcs (7+), which ``long_arcs`` breaks down


def length_bins(heads: Sequence[int]) -> np.ndarray:
    """The bin (index into ``LENGTH_BINS``) of each word's arc; heads 1-based, 0 = root."""
    h = np.asarray(heads, dtype=np.int64)
    length = np.abs(h - np.arange(1, len(h) + 1))
    return np.where(h == 0, 0, np.searchsorted(_LENGTH_EDGES, length, side="right") + 1)


def _pct(num: int, den: int) -> float:
    return 100.0 * num / den if den else 0.0


def _f(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def shown(figures: Dict[str, float], key: str, fmt: str = ".2f") -> str:
    """A figure of ``Scores.as_dict`` for a table: "-" for a non-projective
    precision with no system arc, recall with no gold arc, F with either
    (0 / 0, which ``as_dict`` keeps as 0.0 for spaCy's scorer)."""
    if key.startswith("NP_"):
        none_p, none_r = not figures.get("np_system_arcs"), not figures.get("np_gold_arcs")
        if (key[3] == "P" and none_p) or (key[3] == "R" and none_r) or (key[3] == "F" and (none_p or none_r)):
            return "-"
    return format(figures[key], fmt)


@dataclass
class Scores:
    """Counts that add up over sentences; ``as_dict`` gives the figures."""

    words: int = 0
    sents: int = 0
    heads_right: int = 0
    arcs_right: int = 0
    exact_u: int = 0
    exact_l: int = 0
    np_gold: int = 0
    np_system: int = 0
    np_gold_right_u: int = 0
    np_gold_right_l: int = 0
    np_system_right_u: int = 0
    np_system_right_l: int = 0
    per_label: Dict[str, list] = field(default_factory=dict)
    # per bin of LENGTH_BINS: [gold arcs, heads right, arcs right]
    per_length: np.ndarray = field(default_factory=lambda: np.zeros((len(LENGTH_BINS), 3), dtype=np.int64))
    # per (gold label, "head left" / "head right") over the long gold arcs: [arcs, heads right, arcs right]
    per_long: Dict[Tuple[str, str], list] = field(default_factory=dict)
    # per sentence, in order: (words, heads right, arcs right), for paired tests between systems
    per_sentence: List[Tuple[int, int, int]] = field(default_factory=list)
    # per named group of gold words (``add``'s ``groups``): [words, heads right, arcs right]
    per_group: Dict[str, list] = field(default_factory=dict)

    def add(self, gold: Tree, system: Tree, groups: Optional[Dict[str, Sequence[bool]]] = None) -> None:
        """One sentence; ``groups``: named masks over its words (e.g. the
        words whose arcs a tree transform changes), scored apart."""
        gh = np.asarray(gold[0])
        sh = np.asarray(system[0])
        gl = np.asarray(gold[1], dtype=object)
        sl = np.asarray(system[1], dtype=object)
        head_ok = gh == sh
        arc_ok = head_ok & (gl == sl)
        self.words += len(gh)
        self.sents += 1
        self.heads_right += int(head_ok.sum())
        self.arcs_right += int(arc_ok.sum())
        self.exact_u += int(head_ok.all())
        self.per_sentence.append((len(gh), int(head_ok.sum()), int(arc_ok.sum())))
        self.exact_l += int(arc_ok.all())
        g_np = nonprojective_arcs(gh)
        s_np = nonprojective_arcs(sh)
        self.np_gold += int(g_np.sum())
        self.np_system += int(s_np.sum())
        self.np_gold_right_u += int((g_np & head_ok).sum())
        self.np_gold_right_l += int((g_np & arc_ok).sum())
        self.np_system_right_u += int((s_np & head_ok).sum())
        self.np_system_right_l += int((s_np & arc_ok).sum())
        bins = length_bins(gh)
        for col, weights in enumerate((None, head_ok, arc_ok)):
            self.per_length[:, col] += np.bincount(bins, weights=weights, minlength=len(LENGTH_BINS)).astype(np.int64)
        for d in np.flatnonzero(bins == LONG).tolist():
            c = self.per_long.setdefault((gl[d], "head left" if gh[d] <= d else "head right"), [0, 0, 0])
            c[0] += 1
            c[1] += int(head_ok[d])
            c[2] += int(arc_ok[d])
        for name, mask in (groups or {}).items():
            mask = np.asarray(mask, dtype=bool)
            c = self.per_group.setdefault(name, [0, 0, 0])
            c[0] += int(mask.sum())
            c[1] += int((mask & head_ok).sum())
            c[2] += int((mask & arc_ok).sum())
        for label in set(gl.tolist()) | set(sl.tolist()):
            # [right, gold, system] labeled arcs of this type
            c = self.per_label.setdefault(label, [0, 0, 0])
            c[0] += int((arc_ok & (gl == label)).sum())
            c[1] += int((gl == label).sum())
            c[2] += int((sl == label).sum())

    def as_dict(self) -> Dict[str, float]:
        p_u = _pct(self.np_system_right_u, self.np_system)
        r_u = _pct(self.np_gold_right_u, self.np_gold)
        p_l = _pct(self.np_system_right_l, self.np_system)
        r_l = _pct(self.np_gold_right_l, self.np_gold)
        return {
            "UAS": _pct(self.heads_right, self.words),
            "LAS": _pct(self.arcs_right, self.words),
            "EM_U": _pct(self.exact_u, self.sents),
            "EM_L": _pct(self.exact_l, self.sents),
            "NP_P_U": p_u, "NP_R_U": r_u, "NP_F_U": _f(p_u, r_u),
            "NP_P_L": p_l, "NP_R_L": r_l, "NP_F_L": _f(p_l, r_l),
            "sentences": self.sents, "words": self.words,
            "np_gold_arcs": self.np_gold, "np_system_arcs": self.np_system,
        }

    def by_length(self) -> Dict[str, Dict[str, float]]:
        """UAS and LAS over the gold arcs of each length bin (``LENGTH_BINS``), and their number."""
        return {name: {"arcs": int(n), "UAS": _pct(int(u), int(n)), "LAS": _pct(int(l), int(n))}
                for name, (n, u, l) in zip(LENGTH_BINS, self.per_length)}

    def long_arcs(self, top: int = 0) -> Dict[str, Dict[str, float]]:
        """UAS and LAS over the long gold arcs (the bin 7+) of each gold label
        and side of the head ("obl, head left": the head precedes its
        dependent), the most frequent first; ``top``: only that many (0: all)."""
        items = sorted(self.per_long.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return {f"{label}, {side}": {"arcs": n, "UAS": _pct(u, n), "LAS": _pct(l, n)}
                for (label, side), (n, u, l) in items[:top or None]}

    def groups(self) -> Dict[str, Dict[str, float]]:
        """UAS and LAS over each named group of gold words, and its size."""
        return {name: {"words": n, "UAS": _pct(u, n), "LAS": _pct(l, n)} for name, (n, u, l) in self.per_group.items()}

    def label_las(self) -> Dict[str, Dict[str, float]]:
        """Per gold label: its arcs, and the share with head and label right (LAS over them)."""
        return {label: {"arcs": gold, "LAS": _pct(right, gold)}
                for label, (right, gold, _) in sorted(self.per_label.items()) if gold}

    def per_type(self) -> Dict[str, Dict[str, float]]:
        """Labeled precision / recall / F per label (as spaCy's dep_las_per_type)."""
        out = {}
        for label, (right, gold, system) in sorted(self.per_label.items()):
            p, r = _pct(right, system), _pct(right, gold)
            out[label] = {"p": p / 100, "r": r / 100, "f": _f(p, r) / 100}
        return out


def evaluate(pairs: Iterable[Tuple[Tree, Tree]]) -> Dict[str, float]:
    """Score (gold, system) pairs of trees over the same words."""
    scores = Scores()
    for gold, system in pairs:
        scores.add(gold, system)
    return scores.as_dict()


def paired_bootstrap(right_a: Sequence[float], right_b: Sequence[float], words: Sequence[int],
                     samples: int = 10000, seed: int = 0) -> Tuple[float, float]:
    """Paired bootstrap test of system A against system B over the same
    sentences: ``right_a[i]`` / ``right_b[i]`` are the words of sentence i
    each got right (a mean over seeds is fine), ``words[i]`` its length.
    Resamples the sentences with replacement ``samples`` times. Returns the
    observed difference A - B in points (of the percentage) and the
    two-sided p-value: twice the share of resamples whose difference lies on
    the other side of zero from the observed one (at most 1)."""
    a = np.asarray(right_a, dtype=np.float64)
    b = np.asarray(right_b, dtype=np.float64)
    n = np.asarray(words, dtype=np.float64)
    if not (len(a) == len(b) == len(n)) or n.sum() == 0:
        raise UnexpectedError(Errors.E129)
    diff = 100 * (a - b)
    observed = float(diff.sum() / n.sum())
    rng = np.random.default_rng(seed)
    resampled = np.empty(samples)
    for start in range(0, samples, 1000):  # 1,000 resamples at a time: bounded memory
        idx = rng.integers(0, len(n), size=(min(1000, samples - start), len(n)))
        resampled[start:start + len(idx)] = diff[idx].sum(axis=1) / n[idx].sum(axis=1)
    other_side = (resampled <= 0).mean() if observed > 0 else (resampled >= 0).mean()
    return observed, float(min(1.0, 2 * other_side))


# --- k-best parses and arc probabilities, against the gold trees ---------------------------

def same_arcs(heads: Sequence[int], labels: Sequence[str], other_heads: Sequence[int],
              other_labels: Sequence[str]) -> np.ndarray:
    """Per word: whether two trees give it the same head and the same label."""
    return ((np.asarray(heads) == np.asarray(other_heads))
            & (np.asarray(labels, dtype=object) == np.asarray(other_labels, dtype=object)))


def oracle_choice(parses: Sequence[Tuple[float, List[int], List[str]]], gold_heads: Sequence[int],
                  gold_labels: Sequence[str], k: int) -> int:
    """How many words the best of the first ``k`` parses gets right (head and
    label): the k-best oracle's count for one sentence."""
    return max((int(same_arcs(h, l, gold_heads, gold_labels).sum()) for _, h, l in parses[:k]), default=0)


@dataclass
class Calibration:
    """Arc probabilities against correctness, in ``bins`` equal bins of
    probability: per bin its count, mean probability and accuracy; the
    expected calibration error (ECE: the count-weighted mean of
    |accuracy - probability|)."""

    counts: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    ece: float

    @property
    def n(self) -> int:
        return int(self.counts.sum())


def calibration(probs: Sequence[float], correct: Sequence[bool], bins: int = 10) -> Calibration:
    probs = np.asarray(probs, dtype=np.float64)
    correct = np.asarray(correct, dtype=np.float64)
    which = np.minimum((probs * bins).astype(int), bins - 1)
    counts = np.bincount(which, minlength=bins).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = np.bincount(which, weights=probs, minlength=bins) / counts
        accuracy = np.bincount(which, weights=correct, minlength=bins) / counts
    seen = counts > 0
    ece = float((counts[seen] * np.abs(accuracy[seen] - confidence[seen])).sum() / max(counts.sum(), 1))
    return Calibration(counts, confidence, accuracy, ece)


def ranking(probs: Sequence[float], correct: Sequence[bool], share: float = 0.2) -> dict:
    """How well arc probabilities tell right arcs from wrong ones, beside
    calibration: the Brier score (mean squared error against 1 / 0), the
    AUROC (the chance that a random right arc gets more than a random wrong
    one, ties half) and the share of the wrong arcs among the ``share``
    least probable arcs (what a checker who reads that many arcs, least
    probable first, finds; ties at the cut counted pro rata)."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(correct, dtype=bool)
    if not len(p):
        return {"Brier": None, "AUROC": None, f"errors_in_least_{round(share * 100)}pc": None}
    values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[inverse]  # mid-ranks of ties
    n_right, n_wrong = int(y.sum()), int((~y).sum())
    auroc = ((ranks[y].sum() - n_right * (n_right + 1) / 2) / (n_right * n_wrong)) if n_right and n_wrong else None
    cut = share * len(p)  # read the least probable values in order; the last value read in part
    wrong_at = np.bincount(inverse, weights=~y, minlength=len(values))
    before = np.r_[0, np.cumsum(counts)[:-1]]
    taken = np.clip(cut - before, 0, counts)
    found = float((wrong_at * taken / counts).sum())
    return {"Brier": float(np.mean((p - y) ** 2)), "AUROC": None if auroc is None else float(auroc),
            f"errors_in_least_{round(share * 100)}pc": found / n_wrong if n_wrong else None}
