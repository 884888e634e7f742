"""The best tree of a sentence from a score per (head, dependent) pair: graph-based decoding
(McDonald et al. 2005), the decoder of the biaffine parser (Dozat & Manning 2017) and of an
ensemble of parsers that each give arcs a probability (Sagae & Lavie 2006, reparsing).

Scores are ``scores[i, j]`` for word i + 1 taking head j (0: the root), as a biaffine scorer
gives them, (n, n + 1). The tree is the maximum spanning arborescence from the root
(Chu-Liu-Edmonds, ``_mst.pyx``) with exactly one word on the root where ``single_root`` asks for
it: every root arc is lowered by more than any two trees can differ, so the best tree has one
root arc and is the best of those that have one (Gabow & Tarjan 1984's reduction), exact, in one
run. Heads are CoNLL-U's (1-based, 0 for the root); no spaCy here.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from spacy_planar.trees._mst import max_arborescence
from spacy_planar.trees.algorithms import are_trees


def graph_of(scores: np.ndarray, single_root: bool = True) -> np.ndarray:
    """The dense graph ``S[h, d]`` over the root and the n words of ``scores`` (n, n + 1): no
    arc into the root or from a word to itself; with ``single_root``, each root arc lowered by
    more than the span of the finite scores times n."""
    n = scores.shape[0]
    S = np.full((n + 1, n + 1), -np.inf)
    S[:, 1:] = np.asarray(scores, dtype=np.float64).T
    np.fill_diagonal(S, -np.inf)
    if single_root and n > 1:
        finite = S[np.isfinite(S)]
        S[0, 1:] -= (finite.max() - finite.min() + 1.0) * n + 1.0
    return S


def best_tree(scores: np.ndarray, single_root: bool = True) -> List[int]:
    """The heads of the best-scoring tree over ``scores`` (n, n + 1): a maximum spanning
    arborescence from the root, with one root word under ``single_root``."""
    if not scores.shape[0]:
        return []
    return max_arborescence(graph_of(scores, single_root))[1:].tolist()


def best_trees(scores: Sequence[np.ndarray], single_root: bool = True) -> List[List[int]]:
    """``best_tree`` of each sentence's scores, the same trees at less cost: where a sentence's
    best head for each word (no word its own) already makes a tree (with one root under
    ``single_root``), that tree is the best (no tree scores more than each word's best), and
    only the others go through Chu-Liu-Edmonds; all checked at once (``are_trees``)."""
    if not len(scores):
        return []
    heads = []
    for s in scores:
        own = np.asarray(s, dtype=np.float64).copy()
        own[np.arange(len(own)), np.arange(1, len(own) + 1)] = -np.inf
        heads.append(own.argmax(axis=1) if len(own) else np.zeros(0, dtype=np.int64))
    lengths = [len(h) for h in heads]
    trees = are_trees(np.concatenate(heads).astype(np.int64), lengths)
    if single_root:
        trees &= np.asarray([(h == 0).sum() == 1 or not len(h) for h in heads])
    return [h.tolist() if ok else best_tree(s, single_root) for s, h, ok in zip(scores, heads, trees)]

