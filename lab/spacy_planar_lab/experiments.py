"""The papers' round-trip experiments, on plain head / label lists: a
transform applied to gold trees and inverted, and what comes back.

- ``projectivization_check``: Experiment 1 of Nivre & Nilsson (2005),
  section 4 (Tables 3 and 4): pseudo-projective encodings (``pseudoproj``).
- ``tree_transform_check``: Experiment I of Nilsson (2007), section 4.2
  (Table 4.4): the coordination and verb-group transforms (``transforms``).

Both count each word with ``round_trip``.
"""
from __future__ import annotations

from collections import Counter
from typing import Dict, Iterable, Sequence, Tuple

import numpy as np

from spacy_planar.trees.algorithms import Tree, nonprojective_arcs
from spacy_planar.trees.pseudoproj import check_encoding, deprojectivize, projectivize
from spacy_planar.trees.transforms import TRANSFORMS, check_transforms, found, invert_transforms


def round_trip(heads: Sequence[int], labels: Sequence[str], transformed: Tree, restored: Tree) -> Counter:
    """Counts of one tree's words: ``uas`` / ``las``, those whose head (and
    label) came back; ``touched``, those whose head or label the transform
    changed, and ``touched_uas`` / ``touched_las`` among them."""
    out: Counter = Counter()
    for g, gl, t, tl, x, xl in zip(heads, labels, *transformed, *restored):
        touched = (t, tl) != (g, gl)
        out["touched"] += touched
        out["uas"] += g == x
        out["las"] += g == x and gl == xl
        out["touched_uas"] += touched and g == x
        out["touched_las"] += touched and g == x and gl == xl
    return out


# --- Experiment 1 of Nivre & Nilsson (2005), section 4 --------------------------

def projectivization_check(trees: Iterable[Tuple[Sequence[int], Sequence[str]]], encoding: str,
                    keep_failures: int = 0) -> Dict:
    """Projectivize and deprojectivize gold trees; figures of Tables 3 and 4:
    non-projective arcs and trees, lifts per arc, label sets before and after,
    non-projective arcs whose head comes back exactly, LAS of the round trip.
    ``keep_failures``: return up to that many unrestored arcs as examples."""
    check_encoding(encoding)
    res = Counter()
    lift_hist = Counter()
    before, after = set(), set()
    failures = []
    for heads, labels in trees:
        heads = list(heads)
        n = len(heads)
        res["trees"] += 1
        res["words"] += n
        before.update(labels)
        nonproj = nonprojective_arcs(heads)
        res["nonprojective_arcs"] += int(nonproj.sum())
        res["nonprojective_trees"] += int(nonproj.any())
        if not nonproj.any():
            after.update(labels)
            res["roundtrip_correct"] += n
            continue
        p = projectivize(heads, labels, encoding)
        after.update(p.labels)
        for k in p.lifts:
            if k:
                lift_hist["1" if k == 1 else "2" if k == 2 else "3" if k == 3 else ">3"] += 1
        h2, l2 = deprojectivize(p.heads, p.labels, encoding)
        res["roundtrip_correct"] += round_trip(heads, labels, (p.heads, p.labels), (h2, l2))["las"]
        for d in np.flatnonzero(nonproj):
            if h2[d] == heads[d]:
                res["restored_arcs"] += 1
            elif len(failures) < keep_failures:
                failures.append({"heads": heads, "labels": list(labels), "word": int(d) + 1,
                                 "gold_head": heads[d], "restored_head": h2[d], "lifts": p.lifts[d],
                                 "projectivized_label": p.labels[d]})
    words = res["words"]
    out = {
        "encoding": encoding,
        "trees": res["trees"],
        "words": words,
        "nonprojective_arcs": res["nonprojective_arcs"],
        "nonprojective_trees": res["nonprojective_trees"],
        "lifts": {k: lift_hist[k] for k in ("1", "2", "3", ">3")},
        "labels_before": len(before),
        "labels_after": len(after),
        "restored_arcs": res["restored_arcs"],
        "restored_percent": 100.0 * res["restored_arcs"] / max(1, res["nonprojective_arcs"]),
        "roundtrip_las": 100.0 * res["roundtrip_correct"] / max(1, words),
    }
    if keep_failures:
        out["failures"] = failures
    return out


# --- Experiment I of Nilsson (2007), section 4.2 --------------------------------------

def tree_transform_check(trees: Iterable[Tuple[Sequence[int], Sequence[str]]], name: str,
                    keep_failures: int = 0) -> Dict:
    """Transform gold trees and invert them (Table 4.4): the round trip's
    attachment scores overall and on the arcs the transform touched (a
    word whose head or label it changed), the structures found, and up to
    ``keep_failures`` words that do not come back."""
    forward, _ = TRANSFORMS[check_transforms([name])[0]]
    res: Counter = Counter()
    failures = []
    for heads, labels in trees:
        heads, labels = list(heads), list(labels)
        res["trees"] += 1
        res["words"] += len(heads)
        res["found"] += found(name, heads, labels)
        h1, l1 = forward(heads, labels)
        h2, l2 = invert_transforms([name], h1, l1)
        res.update(round_trip(heads, labels, (h1, l1), (h2, l2)))
        for d, (g, x, gl, xl) in enumerate(zip(heads, h2, labels, l2), 1):
            if (g, gl) != (x, xl) and len(failures) < keep_failures:
                failures.append({"heads": heads, "labels": labels, "word": d, "gold": [g, gl],
                                 "transformed": [h1[d - 1], l1[d - 1]], "restored": [x, xl]})
    words, touched = max(res["words"], 1), max(res["touched"], 1)
    out = {"transform": name, "trees": res["trees"], "words": res["words"], "found": res["found"],
           "touched_arcs": res["touched"],
           "touched_percent": 100.0 * res["touched"] / words,
           "roundtrip_uas": 100.0 * res["uas"] / words, "roundtrip_las": 100.0 * res["las"] / words,
           # none touched (a treebank without the structure): nothing to score
           "touched_uas": 100.0 * res["touched_uas"] / touched if res["touched"] else None,
           "touched_las": 100.0 * res["touched_las"] / touched if res["touched"] else None}
    if keep_failures:
        out["failures"] = failures
    return out
