"""Beam search, a small class beside the driver loop (``driver.py``), as
spaCy keeps its beam batch apart from its parse loop.

A :class:`Beam` holds the states of a batch of sentences, each sentence's
beam being rows of one ``States`` (best first), with each row's total score
(the sum of the log-probabilities of its actions under the model's softmax
over the valid actions, as the model is trained); ``advance`` takes one
step for every beam at once. :class:`GoldBeam` adds what training with the
beam's global loss needs: each sentence's gold derivation beside its beam,
the history of the beam's states, and the loss's gradient at the end
(``BeamRun``). ``driver.beam_parse`` and ``driver.beam_train_run`` loop over
them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import numpy as np

from spacy_planar.parser.shared.softmax import log_softmax
from spacy_planar.errors import Errors, UserError, Warnings, unexpected
from spacy_planar.parser.oracles import Oracle
from spacy_planar.parser.systems.base import TransitionSystem, Tree
from spacy_planar.parser.systems.state import INT, States


class Beam:
    """Beams of ``width`` states per sentence over a batch (see the module
    docstring). ``density``: drop the candidates whose probability is below
    ``density`` times that of their sentence's best candidate (spaCy's
    ``beam_density``; 0: none dropped). ``merge``: merge equivalent states
    (Huang & Sagae 2010, section 3): two states of a sentence that neither
    the model nor the system can tell apart from here on
    (``States.signature``: both stacks and the buffer whole, with what the
    features read of their words) become one, the better scored. This is the
    Viterbi step of their dynamic programme; predictor pointers are not
    needed, since the signature holds the stacks whole: merged states differ
    only in arcs among words out of play. A merge frees the slot for the next
    step. A finished state stays in its beam as it is, competing with the
    unfinished ones, until the whole beam is final; the sentence's tree is
    then its best state's (``trees``). ``keep_all``: also every final
    state's tree with its total, best first, and per word the
    log-probability of the move that gave it its head (a root no move
    attached: of staying headless, ``TransitionSystem.staying_headless``) (``kbest``: the k-best parses, their
    probabilities and the arcs' confidences)."""

    def __init__(self, system: TransitionSystem, st: States, offsets: np.ndarray, width: int, *,
                 density: float, merge: bool, keep_all: bool = False):
        self.system = system
        self.st = st
        self.offsets = offsets
        if int(width) < 1:
            raise UserError(Errors.E062.format(name=system.name, width=width, density=density))
        self.width = int(width)
        self.log_density = np.log(density) if density > 0 else -np.inf
        self.merge = merge
        self.sent = np.arange(st.B)  # each row's sentence
        self.total = np.zeros(st.B)  # each row's total score
        self.trees: List[Optional[Tree]] = [None] * st.B
        self.keep_all = keep_all
        self.kbest: List[List[Tuple[float, Tree, List[float]]]] = [[] for _ in range(st.B)]
        # with keep_all, per row and word: the log-probability of the move that gave the word its head,
        # and of no move giving it one so far (``staying_headless``: a root's)
        self.arc_logp = np.zeros((st.B, st.T)) if keep_all else None
        self.headless_logp = np.zeros((st.B, st.T)) if keep_all else None
        self._headless_step: Optional[np.ndarray] = None
        self.recorded = np.zeros(st.B, dtype=bool)  # sentences whose beam is all final, tree taken

    @property
    def done(self) -> bool:
        """Whether every sentence left in the batch has its tree."""
        return bool(self.recorded[self.sent].all())

    def advance(self, score: Callable) -> None:
        """One step of every beam: the ``width`` best candidates of each
        sentence (its live states' actions, and its finished states as they
        are), the batch re-formed from them, their actions applied, and the
        trees of the beams now all final taken."""
        before = self.total
        r, a = self._step(score)
        self.st = self.st.select(r)
        self.offsets = self.offsets[r]
        if not self.keep_all:
            self.system.apply(self.st, a)
        else:  # the new arcs get their move's log-probability
            self.arc_logp = self.arc_logp[r]
            self.headless_logp = (self.headless_logp + self._headless_step)[r]
            headless = self.st.heads < 0
            self.system.apply(self.st, a)
            rows, words = np.nonzero(headless & (self.st.heads >= 0))
            self.arc_logp[rows, words] = (self.total - before[r])[rows]
        self._record()

    def _step(self, score: Callable) -> Tuple[np.ndarray, np.ndarray]:
        """The rows the new batch copies and the action each then takes (-1:
        none); sets the new rows' sentences and totals."""
        system, st = self.system, self.st
        live = ~system.is_final(st)
        mine = np.flatnonzero(~self.recorded[self.sent])  # the rows of sentences still parsing
        if self.merge and len(mine) > 1:
            mine = mine[_first_of_each(self.sent[mine], st.signature()[mine])]
        going = mine[live[mine]]
        k, a, c = np.zeros(0, dtype=INT), np.zeros(0, dtype=INT), np.zeros(0)
        if self.keep_all:
            self._headless_step = np.zeros((st.B, st.T))
        if len(going):
            valid = system.valid_actions(st)[going]
            rules = system.ud_label_rules(st)
            if rules is not None:
                valid &= rules[going]
            scores = np.asarray(score(*(x[going] for x in system.model_inputs(st, self.offsets))))
            k, a, c = candidates(system, scores, valid, self.total[going], self.width)
            if self.keep_all:
                system.staying_headless(st, going, np.where(valid, scores, -np.inf), self._headless_step)
        finished = mine[~live[mine]]  # they stay as they are (action -1)
        r, a, c, sent, lead = _best_of_each((k, a, c), going, finished, self.total, self.sent, self.width)
        kept = (np.arange(len(sent)) - lead < self.width) & (c >= c[lead] + self.log_density)
        self.total, self.sent = c[kept], sent[kept]
        return r[kept], a[kept]

    def _record(self) -> None:
        """Take the tree of each sentence whose beam is now all final."""
        sent = self.sent
        if not len(sent):
            return
        first = np.flatnonzero(np.r_[True, sent[1:] != sent[:-1]])
        done = np.logical_and.reduceat(self.system.is_final(self.st), first)
        new = first[done & ~self.recorded[sent[first]]]
        for r, tree in zip(new, self.system.output_trees(self.st, new, decode=False)):
            self.trees[sent[r]] = tree
        if self.keep_all and len(new):
            end = np.r_[first[1:], len(sent)]
            rows = np.concatenate([np.arange(r, end[first == r][0]) for r in new])
            for r, tree in zip(rows, self.system.output_trees(self.st, rows, decode=False)):
                n = len(tree[0])
                local = self.arc_logp[r, 1:n + 1].copy()
                roots = np.flatnonzero((np.asarray(tree[0]) == 0) & (local == 0.0))
                local[roots] = self.headless_logp[r, roots + 1]
                self.kbest[sent[r]].append((float(self.total[r]), tree, local.tolist()))
        self.recorded[sent[new]] = True


@dataclass
class BeamRun:
    """What a ``GoldBeam`` found: the model inputs and valid actions of
    the states whose scores the global loss reaches (one row each), and the
    gradient of the loss with respect to their log-probabilities: ``weights``
    [states, actions] on the actions taken, ``mass`` [states] their sum
    (the gradient of the scores is ``weights - mass * softmax``); the loss,
    summed over sentences; the sentences updated early (gold out of the beam)."""

    inputs: Tuple[np.ndarray, ...]
    valid: np.ndarray
    weights: np.ndarray
    mass: np.ndarray
    loss: float
    sentences: int
    early: int




class GoldBeam:
    """A beam of ``width`` states per training sentence, scored as
    :class:`Beam` scores them, beside the sentence's gold derivation (the
    static oracle's), for the global loss with early update (Collins &
    Roark 2004; with a softmax over the beam, Zhou et al. 2015, Andor et al.
    2016). When the gold prefix falls out of a sentence's beam, or the beam
    is final, the sentence's loss is the negative log-probability of the
    gold sequence under a softmax over the beam's sequences and the gold
    one; its gradient reaches every scored state on those sequences' paths
    (a history of back pointers, the sequences' shared prefixes cancelling):
    ``result``."""

    def __init__(self, system: TransitionSystem, st: States, oracle: Oracle, offsets: np.ndarray, width: int):
        self.system, self.st, self.oracle, self.offsets = system, st, oracle, offsets
        if int(width) < 1:
            raise UserError(Errors.E062.format(name=system.name, width=width, density=0.0))
        self.width = int(width)
        B = st.B
        self.sent = np.arange(B)  # per row: its sentence, total score, last node, whether on the gold path
        self.total = np.zeros(B)
        self.node = np.full(B, -1, dtype=INT)
        self.gold = np.ones(B, dtype=bool)
        # the history: per step, each new node's parent (-1: the initial state), the scored state it
        # leaves, the action it takes; the scored states' model inputs and valid actions
        self.parents: List[np.ndarray] = []
        self.states: List[np.ndarray] = []
        self.actions: List[np.ndarray] = []
        self.n_nodes = 0
        self.inputs: List[Tuple[np.ndarray, ...]] = []
        self.valids: List[np.ndarray] = []
        self.n_states = 0
        self.finals: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (nodes, totals, gold) per sentence
        self.early = 0

    @property
    def done(self) -> bool:
        """Whether every beam left is final."""
        return bool(self.system.is_final(self.st).all())

    def _add_nodes(self, parent: np.ndarray, state: np.ndarray, action: np.ndarray) -> np.ndarray:
        ids = self.n_nodes + np.arange(len(parent), dtype=INT)
        self.parents.append(parent), self.states.append(state), self.actions.append(action)
        self.n_nodes += len(parent)
        return ids

    def _score(self, score: Callable, going: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The log-probabilities of the valid actions of the rows ``going``
        (recorded in the history); each row's scored state (-1: none) and
        its place among ``going``."""
        st, system = self.st, self.system
        valid = system.valid_actions(st)
        logp = np.zeros((0, valid.shape[1]))
        state_of = np.full(st.B, -1, dtype=INT)
        if len(going):
            x = tuple(part[going] for part in system.model_inputs(st, self.offsets))
            logp = log_softmax(np, np.asarray(score(*x), dtype=np.float64), valid[going], fill=-np.inf)
            self.inputs.append(x), self.valids.append(valid[going])
            state_of[going] = self.n_states + np.arange(len(going), dtype=INT)
            self.n_states += len(going)
        at = np.full(st.B, -1, dtype=INT)
        at[going] = np.arange(len(going))
        return logp, state_of, at

    def advance(self, score: Callable) -> None:
        """One step: every beam's best ``width`` candidates; the sentences
        whose gold prefix fell out are updated early (their beam and gold
        sequence kept for the loss) and leave the batch."""
        st, system = self.st, self.system
        total, node, gold = self.total, self.node, self.gold
        live = ~system.is_final(st)
        going = np.flatnonzero(live)
        logp, state_of, at = self._score(score, going)
        gold_action = np.where(live, self.oracle.static_actions(st), -1)
        cand = system.limit_candidates(total[going, None] + logp)
        finished = np.flatnonzero(~live)
        r, a, c, sent, lead = _best_of_each(top_of_rows(cand, self.width), going, finished, total, self.sent,
                                            self.width)
        kept = np.arange(len(sent)) - lead < self.width
        on_gold = gold[r] & (a == gold_action[r])
        # the gold successor of each sentence: from its row on the gold path
        g = np.flatnonzero(gold)
        g_action = gold_action[g]
        g_total = total[g] + np.where(g_action >= 0, logp[at[g], np.maximum(g_action, 0)], 0.0)
        lost = ~np.isin(self.sent[g], sent[kept & on_gold])  # the gold prefix fell out of the beam
        new = kept & (a >= 0)
        new_node = node[r].copy()
        new_node[new] = self._add_nodes(node[r[new]], state_of[r[new]], a[new])
        if lost.any():  # early update: the sentence's beam and its gold sequence
            gl = g[lost]
            fresh = g_action[lost] >= 0
            g_node = node[gl].copy()
            g_node[fresh] = self._add_nodes(node[gl[fresh]], state_of[gl[fresh]], g_action[lost][fresh])
            for s_row, s_node, s_total in zip(self.sent[gl], g_node, g_total[lost]):
                mine = kept & (sent == s_row)
                self.finals.append((np.r_[new_node[mine], s_node], np.r_[c[mine], s_total],
                                    np.r_[np.zeros(mine.sum(), dtype=bool), True]))
            self.early += len(gl)
        keep = kept & ~np.isin(sent, self.sent[g[lost]])
        self.total, self.node, self.gold, self.sent = c[keep], new_node[keep], on_gold[keep], sent[keep]
        rows = r[keep]
        self.st, self.oracle, self.offsets = self.st.select(rows), self.oracle.select(rows), self.offsets[rows]
        system.apply(self.st, a[keep])

    def result(self) -> BeamRun:
        """The loss and its gradient, once ``done``: the sentences whose beam
        is final join those updated early."""
        for s_row in np.unique(self.sent):
            mine = self.sent == s_row
            self.finals.append((self.node[mine], self.total[mine], self.gold[mine]))
        return _beam_gradient(self.finals, self.parents, self.states, self.actions, self.inputs, self.valids,
                              self.early)


def _beam_gradient(finals, nodes_parent, nodes_state, nodes_action, inputs, valids, early: int) -> BeamRun:
    """The loss and gradient of ``GoldBeam``'s sequences: a softmax
    over each sentence's final sequences (their totals), the gold one the
    target; each sequence's weight (probability - gold) flows back along its
    nodes to the (state, action) pairs it took."""
    n = sum(len(p) for p in nodes_parent)
    weight = np.zeros(n + 1)  # the last slot: the initial state (-1)
    loss = 0.0
    missing = sum(not is_gold.any() for _, _, is_gold in finals)
    if missing:  # the gold sequence is always among them
        unexpected(Warnings.W094.format(system="beam training", count=missing))
    for nodes, totals, is_gold in finals:
        if not is_gold.any():
            continue
        p = np.exp(totals - totals.max())
        p /= p.sum()
        loss -= float(np.log(max(p[is_gold].sum(), 1e-300)))
        np.add.at(weight, nodes, p - is_gold / is_gold.sum())
    start = n
    for parent in reversed(nodes_parent):  # children before parents
        start -= len(parent)
        np.add.at(weight, parent, weight[start:start + len(parent)])
    width = valids[0].shape[1] if valids else 0  # one batch: every step's states are as wide
    if n == 0:
        return BeamRun((), np.zeros((0, width), dtype=bool), np.zeros((0, width)), np.zeros(0), loss,
                       len(finals), early)
    state = np.concatenate(nodes_state)
    action = np.concatenate(nodes_action)
    w = weight[:n]
    used = np.abs(w) > 1e-9
    states, local = np.unique(state[used], return_inverse=True)
    weights = np.zeros((len(states), width))
    np.add.at(weights, (local, action[used]), w[used])
    mass = weights.sum(axis=1)
    parts = tuple(np.concatenate(part)[states] for part in zip(*inputs))
    return BeamRun(parts, np.concatenate(valids)[states], weights, mass, loss, len(finals), early)


def top_of_rows(cand: np.ndarray, width: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``width`` highest finite entries of each row of ``cand`` [rows,
    actions] as (row, action, value), each row's in the order of its actions."""
    if cand.shape[1] > width:  # no more than ``width`` candidates of a row can be kept
        top = np.argpartition(-cand, width - 1, axis=1)[:, :width]
        top.sort(axis=1)
    else:
        top = np.broadcast_to(np.arange(cand.shape[1]), cand.shape)
    k = np.repeat(np.arange(cand.shape[0]), top.shape[1])
    a = top.reshape(-1)
    c = cand[k, a]
    ok = np.isfinite(c)
    return k[ok], a[ok], c[ok]


def candidates(system: TransitionSystem, scores: np.ndarray, valid: np.ndarray, total: np.ndarray,
                width: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A beam step's candidates from the states' scores [states, actions]:
    the ``width`` best valid actions of each state that the system puts
    forward, as (state, action, total), the total the state's plus the
    action's log-probability. What ``top_of_rows(system.limit_candidates(
    total + log_softmax(np, scores, valid, fill=-np.inf)), width)`` gives
    (``shared/softmax.py``, in float64), with the log-softmax taken only
    where it is kept: a row's ranking is its scores' ranking, so
    the candidates are chosen on the masked scores (in the model's precision)
    and normalized after."""
    masked = np.where(valid, scores, -np.inf)
    norm = _log_norm(masked)
    k, a, s = top_of_rows(system.limit_candidates(masked), width)
    return k, a, total[k] + (s.astype(np.float64) - norm[k, 0])


def _best_of_each(cand: Tuple[np.ndarray, np.ndarray, np.ndarray], going: np.ndarray, finished: np.ndarray,
                  total: np.ndarray, rows: np.ndarray, width: int) -> Tuple[np.ndarray, ...]:
    """A beam step's candidates, by sentence, best first: (row, action, total
    score, sentence, the position of the sentence's best) of the candidates
    ``cand`` (position among ``going``, action, total; ``top_of_rows``) of
    the rows ``going`` and of the rows ``finished``, which stay as they are
    (action -1). Ties: the lower action, then the earlier row, as
    ``greedy_parse``."""
    k, a, c = cand
    r = np.concatenate([going[k], finished])
    a = np.concatenate([a, np.full(len(finished), -1, dtype=a.dtype)])
    c = np.concatenate([c, total[finished]])
    sent = rows[r]
    order = np.lexsort((r, -c, sent))
    r, a, c, sent = r[order], a[order], c[order], sent[order]
    first = np.flatnonzero(np.r_[True, sent[1:] != sent[:-1]])
    lead = np.repeat(first, np.diff(np.r_[first, len(sent)]))
    return r, a, c, sent, lead


def _log_norm(masked: np.ndarray) -> np.ndarray:
    """log sum exp of each row [rows, 1] (float64) of scores masked with -inf;
    the exponentials in the scores' precision, their sum in float64."""
    top = masked.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top.astype(np.float64) + np.log(np.exp(masked - top).sum(axis=1, keepdims=True, dtype=np.float64))


def _first_of_each(groups: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Positions of the first row of each distinct (group, key row), in order."""
    both = np.ascontiguousarray(np.concatenate([groups[:, None], keys], axis=1))
    as_bytes = both.view(np.dtype((np.void, both.dtype.itemsize * both.shape[1]))).ravel()
    _, first = np.unique(as_bytes, return_index=True)
    return np.sort(first)

