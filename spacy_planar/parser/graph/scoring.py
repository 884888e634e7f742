"""What the graph-based parser (``biaffine_parser``) does with its model's ``GraphScorer``, apart
from the component: sentences as padded rows of the batch's words, the arcs' log-probabilities,
the training loss (Dozat & Manning 2017, section 2.2: a softmax over each word's candidate heads;
section 2.3: a softmax over the labels of its gold arc), and the decoding: the arcs'
log-probabilities to the best tree with one root (``trees.mst``: Chu-Liu-Edmonds under the root
constraint, exact), then each arc's most probable label. Every output is a tree by construction:
nothing is repaired after the model chose.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.parser.shared.softmax import NO_SCORE, log_softmax, softmax
from spacy_planar.parser.shared.units import batches
from spacy_planar.trees.eisner import best_projective_trees
from spacy_planar.trees.mst import best_trees

# sentences scored together, sorted by length (less padding)
SENTENCES_PER_BATCH = 64
NO_ARC = NO_SCORE  # the score of a candidate that is not one (the word itself, the pad)


def padded_rows(starts: Sequence[int], lengths: Sequence[int]) -> np.ndarray:
    """(sentences, longest): each sentence's rows ``start .. start + length - 1``, -1 after."""
    T = max(lengths, default=0)
    cols = np.arange(T)[None, :]
    rows = np.asarray(starts, dtype=np.int64)[:, None] + cols
    return np.where(cols < np.asarray(lengths)[:, None], rows, -1)


def candidates(xp, lengths, T: int):
    """(sentences, T, T + 1) booleans: word i (of a sentence of ``lengths``) may take head j:
    j the root or another word of the sentence."""
    n = xp.asarray(np.asarray(lengths, dtype=np.int64))[:, None, None]
    i = xp.arange(T)[None, :, None]
    j = xp.arange(T + 1)[None, None, :]
    return (i < n) & (j <= n) & (j != i + 1)


def arc_loss(ops, scores, lengths: Sequence[int], gold: np.ndarray, target: Optional[np.ndarray] = None
             ) -> Tuple[object, float]:
    """Cross-entropy of each word's gold head (``gold`` (sentences, T): 0 the root, j the word
    j; -1 in the pad) under the softmax over its candidates: (d_scores, loss); with ``target``
    ((sentences, T, T + 1), each word's row a distribution over its candidates: a teacher's,
    ``graph/teachers.py``), of that distribution instead (gradient ``p - q``)."""
    xp = ops.xp
    valid = candidates(xp, lengths, scores.shape[1])
    logp = log_softmax(xp, scores, valid)
    gold = ops.asarray(gold)
    words = gold >= 0
    if target is None:
        target = (xp.arange(scores.shape[2])[None, None, :] == gold[..., None]) & words[..., None]
    else:
        target = ops.asarray(target) * valid * words[..., None]
    probs = xp.exp(logp) * valid * words[..., None]
    loss = float(-(logp * target).sum())
    return (probs - target).astype("float32"), loss


def label_loss(ops, scores, gold: np.ndarray) -> Tuple[object, float]:
    """Cross-entropy of each arc's gold label: (d_scores, loss)."""
    xp = ops.xp
    logp = log_softmax(xp, scores)
    onehot = xp.arange(scores.shape[1])[None, :] == ops.asarray(gold)[:, None]
    return (xp.exp(logp) - onehot).astype("float32"), float(-(logp * onehot).sum())


def head_offsets(xp, T: int):
    """(1, T, T + 1): the offset of head j from word i in the sentence (the root at 0, word i
    at i + 1): j - i - 1, never 0 among candidates."""
    i = xp.arange(T)[None, :, None]
    j = xp.arange(T + 1)[None, None, :]
    return (j - i - 1).astype("float32")


def _log_sigmoid(xp, x):
    return -(xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x))))


def positional_prior(xp, lin, dist):
    """Each candidate head's log-likelihood under the linearization and distance scores (Qi et
    al. 2018, section 2.2: log sigmoid(s_lin sign(offset)), and -log(1 + (|offset| - d)^2 / 2)
    for the predicted distance d = 1 + softplus(s_dist)), added to its arc score."""
    offset = head_offsets(xp, lin.shape[1])
    predicted = 1 + xp.logaddexp(0, dist)
    return _log_sigmoid(xp, lin * xp.sign(offset)) - xp.log1p((xp.abs(offset) - predicted) ** 2 / 2)


def positional_loss(ops, lin, dist, gold) -> Tuple[object, object, float]:
    """The linearization's and the distance's losses at each word's gold head (``gold`` as for
    ``arc_loss``): (d_lin, d_dist, loss), the gradients zero elsewhere."""
    xp = ops.xp
    gold = ops.asarray(gold)
    words = gold >= 0
    onehot = ((xp.arange(lin.shape[2])[None, None, :] == gold[..., None]) & words[..., None]).astype("float32")
    offset = head_offsets(xp, lin.shape[1])
    side = xp.sign(offset)
    lin_loss = -_log_sigmoid(xp, lin * side)
    d_lin = -side * xp.exp(_log_sigmoid(xp, -lin * side))  # d(-log sigmoid(y s)) / ds = -y sigmoid(-y s)
    predicted = 1 + xp.logaddexp(0, dist)
    gap = xp.abs(offset) - predicted
    dist_loss = xp.log1p(gap ** 2 / 2)
    d_dist = -gap / (1 + gap ** 2 / 2) * xp.exp(_log_sigmoid(xp, dist))  # ... * d predicted / ds = sigmoid(s)
    loss = float(((lin_loss + dist_loss) * onehot).sum())
    return (d_lin * onehot).astype("float32"), (d_dist * onehot).astype("float32"), loss


def arc_scores(scorer, rows) -> Tuple[object, Callable, Optional[Tuple]]:
    """The arcs' scores of ``rows`` (``GraphScorer.arcs``) with the positional prior added where
    the model has it, their backward pass, and the positional scores with theirs (or None)."""
    S, backprop = scorer.arcs(rows)
    if not scorer.positional:
        return S, backprop, None
    (lin, dist), backprop_positions = scorer.positions(rows)
    return S + positional_prior(scorer.ops.xp, lin, dist), backprop, (lin, dist, backprop_positions)


Gold = Tuple[int, List[int], List[int]]  # a sentence: its first row, heads (0: root), label ids (-1: the root's)


def training_loss(scorer, sentences: Sequence[Gold], targets: Optional[Sequence[Optional[np.ndarray]]] = None
                  ) -> Tuple[object, float]:
    """The gradient of the scorer's rows and the loss over ``sentences``: every word's head
    (``arc_loss``; towards ``targets``' (words, words + 1) distribution where a sentence has one)
    and every non-root word's label at its gold head (``label_loss``)."""
    ops = scorer.ops
    dZ = ops.alloc2f(*scorer.Z.shape)
    total = 0.0
    for idx in batches([len(h) for _, h, _ in sentences], SENTENCES_PER_BATCH):
        group = [sentences[i] for i in idx]
        lengths = [len(h) for _, h, _ in group]
        rows = padded_rows([s for s, _, _ in group], lengths)
        gold = np.full(rows.shape, -1, dtype=np.int64)
        for b, (_, heads, _) in enumerate(group):
            gold[b, :len(heads)] = heads
        S, backprop, positions = arc_scores(scorer, rows)
        target = _targets(gold, [targets[i] for i in idx]) if targets else None
        d_scores, loss = arc_loss(ops, S, lengths, gold, target)
        dZ += backprop(d_scores)
        total += loss
        if positions is not None:
            lin, dist, backprop_positions = positions
            d_lin, d_dist, loss = positional_loss(ops, lin, dist, gold)
            dZ += backprop_positions((d_lin, d_dist))
            total += loss
    deps, heads, labels = arcs_of([s for s, _, _ in sentences], [h for _, h, _ in sentences],
                                  [lab for _, _, lab in sentences])
    if len(deps):
        S, backprop = scorer.labels(deps, heads)
        d_scores, loss = label_loss(ops, S, labels)
        dZ += backprop(d_scores)
        total += loss
    return dZ, total


def _targets(gold: np.ndarray, given: Sequence[Optional[np.ndarray]]) -> np.ndarray:
    """(sentences, T, T + 1): each sentence's given distributions, the gold heads' one-hot rows
    where it has none."""
    out = (np.arange(gold.shape[1] + 1)[None, None, :] == gold[..., None]).astype("float32")
    for b, target in enumerate(given):
        if target is not None:
            out[b, :len(target), :len(target) + 1] = target
    return out


# each a batch's graphs to their trees: any tree (one at a time); projective trees only (the batch's tables at once)
DECODERS = {"mst": best_trees,
            "eisner": best_projective_trees}


def decode(scorer, starts: Sequence[int], lengths: Sequence[int], single_root: bool = True, decoder: str = "mst"
           ) -> List[Tuple[List[int], List[int], np.ndarray]]:
    """Each sentence (its first row of the scorer and length): the best tree under its arcs'
    log-probabilities (``decoder``: ``DECODERS``), the label ids of its non-root arcs (-1 on the
    root's), and each word's probability of its head and label; in the order given."""
    best = DECODERS[decoder]
    out: List[Optional[Tuple]] = [None] * len(starts)
    for idx in batches(lengths, SENTENCES_PER_BATCH):
        group_lengths = [lengths[i] for i in idx]
        logp = arc_log_probs(scorer, [starts[i] for i in idx], group_lengths)
        graphs = [logp[b, :n, :n + 1] for b, n in enumerate(group_lengths)]
        trees = best(graphs, single_root)
        for b, i in enumerate(idx):
            out[i] = (trees[b], np.exp(logp[b, np.arange(group_lengths[b]), trees[b]]))
    return labelled(scorer, starts, out)


def labelled(scorer, starts: Sequence[int], trees: Sequence[Tuple[Sequence[int], np.ndarray]]
             ) -> List[Tuple[List[int], List[int], np.ndarray]]:
    """Each sentence's (heads, each word's probability of its head) given with its arcs' most
    probable labels: (heads, the label ids of its non-root arcs (-1 on the root's), each word's
    probability of its head and label)."""
    deps, heads = arcs_of(starts, [h for h, _ in trees])
    label_ids, label_probs = np.zeros(0, dtype=np.int64), np.zeros(0)
    if len(deps):
        S, _ = scorer.labels(deps, heads)
        probs = scorer.ops.to_numpy(softmax(scorer.ops.xp, S))
        label_ids, label_probs = probs.argmax(axis=1), probs.max(axis=1)
    result, k = [], 0
    for heads, head_probs in trees:
        attached = np.asarray(heads) > 0
        n_arcs = int(attached.sum())
        labels = np.full(len(heads), -1, dtype=np.int64)
        labels[attached] = label_ids[k:k + n_arcs]
        probs = head_probs.copy()
        probs[attached] *= label_probs[k:k + n_arcs]
        k += n_arcs
        result.append((heads, labels.tolist(), probs))
    return result


def arcs_of(starts: Sequence[int], trees: Sequence[Sequence[int]], labels: Optional[Sequence] = None):
    """The non-root arcs of sentences (their first rows and heads) as rows of the scorer:
    (dependents, heads), and with ``labels`` (per sentence, per word) theirs."""
    lengths = [len(h) for h in trees]
    if not sum(lengths):
        empty = np.zeros(0, dtype=np.int64)
        return (empty, empty) if labels is None else (empty, empty, empty)
    first = np.repeat(np.asarray(starts, dtype=np.int64), lengths)
    word = np.concatenate([np.arange(n) for n in lengths])
    head = np.concatenate([np.asarray(h, dtype=np.int64) for h in trees])
    keep = head > 0
    out = ((first + word)[keep], (first + head - 1)[keep])
    if labels is None:
        return out
    return (*out, np.concatenate([np.asarray(lab, dtype=np.int64) for lab in labels])[keep])


def arc_log_probs(scorer, starts: Sequence[int], lengths: Sequence[int]) -> np.ndarray:
    """(sentences, T, T + 1) on the host: each word's log-probability of each candidate head
    (``NO_ARC``-low for what is not one)."""
    ops = scorer.ops
    S, _, _ = arc_scores(scorer, padded_rows(starts, lengths))
    return ops.to_numpy(log_softmax(ops.xp, S, candidates(ops.xp, lengths, S.shape[1])))
