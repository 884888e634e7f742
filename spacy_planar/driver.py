"""The one loop that drives a transition system over a batch of states,
whatever chooses the moves: the static oracle (``oracle_run``: training
data and the ``oracle`` command), the model while training with exploration
(``exploration_run``), the model alone (``greedy_parse``), the model with a
beam (``beam_parse``); tests/reference.py drives it by chance (``random_run``).

Each step, every live state gets one action from the chooser, all at once;
a chooser may instead re-form the batch, naming the row each new state is
copied from (beam search: a sentence's states are rows of the batch).
One rule for finished rows: when fewer than ``COMPACT_BELOW`` of the
batch's rows are live, the finished ones are dropped (their trees kept where
the caller wants them), so a step costs in proportion to the live states.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .errors import Errors, unexpected
from .oracles import Oracle, make_oracle
from .systems.base import TransitionSystem, Tree
from .systems.state import INT, States

COMPACT_BELOW = 0.5

# chooser(states, oracle or None, original rows, offsets, live) -> [B] action ids (-1: none),
# or (parents, actions): the new batch's rows are copies of the rows ``parents``, each then
# taking its action
Chooser = Callable[[States, Optional[Oracle], np.ndarray, np.ndarray, np.ndarray],
                   Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]]


def drive(system: TransitionSystem, st: States, choose: Chooser, *, oracle: Optional[Oracle] = None,
          offsets: Optional[np.ndarray] = None, keep_trees: bool = False, decode: bool = True, bounded: bool = False,
          compact_below: float = COMPACT_BELOW, observer: Optional[Callable] = None) -> List[Optional[Tree]]:
    """Run ``choose`` until every state is final (or has no valid action).

    ``offsets``: each row's first token among the batch's tokens (features);
    ``keep_trees``: return the output tree of every row (else Nones),
    decoded into the treebank's terms unless ``decode`` is False;
    ``bounded``: raise RuntimeError if a state outlives ``system.max_steps``;
    ``observer(system, states, actions (-1: none), offsets)``: called after
    each step (diagnostics: ``spacy-planar stacks``)."""
    rows = np.arange(st.B)  # the original row of each state
    offsets = np.zeros(st.B, dtype=INT) if offsets is None else offsets
    bound = np.array([system.max_steps(n) for n in st.n], dtype=INT) if bounded else None
    trees: List[Optional[Tree]] = [None] * st.B
    dead = np.zeros(st.B, dtype=bool)  # no valid action (never expected: a system always has one)
    while True:
        done = system.is_final(st) | dead
        if done.all() or (~done).sum() < compact_below * st.B:
            if keep_trees:
                finished = np.flatnonzero(done)
                for r, tree in zip(finished, system.output_trees(st, finished, decode)):
                    trees[rows[r]] = tree
            if done.all():
                return trees
            keep = np.flatnonzero(~done)
            st, rows, offsets, dead, done = st.select(keep), rows[keep], offsets[keep], dead[keep], done[keep]
            bound = bound[keep] if bound is not None else None
            oracle = oracle.select(keep) if oracle is not None else None
        actions = choose(st, oracle, rows, offsets, ~done)
        if isinstance(actions, tuple):  # the batch re-formed from the rows ``parents``
            parents, actions = actions
            st, rows, offsets, dead, done = st.select(parents), rows[parents], offsets[parents], dead[parents], done[parents]
            bound = bound[parents] if bound is not None else None
            oracle = oracle.select(parents) if oracle is not None else None
        stuck = (actions < 0) & ~done & ~dead
        if stuck.any():  # a system always has a valid move
            unexpected(Errors.E092.format(system=system.name, count=int(stuck.sum()), states=st.B))
            dead |= stuck
        system.apply(st, actions)
        if observer is not None:
            observer(system, st, np.where(done, -1, actions), offsets)
        if bound is not None and (st.steps > bound).any():
            raise RuntimeError(Errors.E072.format(system=system.name))


# --- the static oracle --------------------------------------------------------------

@dataclass
class OracleRun:
    """What ``oracle_run`` found: per step, (original rows, feature tokens,
    label features, actions, valid moves [rows, 7], ``system.step_record``)
    of the live states (with ``with_features``); the tree each row ends in, as ``prepare_tree``
    gives trees (not decoded); the moves made."""

    steps: List[Tuple[np.ndarray, ...]] = field(default_factory=list)
    trees: List[Tree] = field(default_factory=list)
    moves: Counter = field(default_factory=Counter)


def oracle_run(system: TransitionSystem, trees: Sequence[Tree], with_features: bool = False,
               keep_trees: bool = True, finish: bool = False) -> OracleRun:
    """Run the static oracle over a batch of prepared gold trees (raises
    RuntimeError if it chooses an invalid move or a state outlives its bound;
    ``finish``: under the single-root rule)."""
    st = system.init_states([len(h) for h, _ in trees], finish=finish)
    oracle = make_oracle(system, st, [system.label_tree(t) for t in trees])
    run = OracleRun()
    names = system.move_names
    counts = np.zeros(len(names), dtype=INT)

    def choose(st: States, oracle: Oracle, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        moves, labels = oracle.static(st)
        actions = system.action_of(moves, labels)
        actions[~live] = -1
        here = np.flatnonzero(live)
        moves_ok = system.valid_moves(st)[here]  # validity does not depend on the label
        bad = here[~moves_ok[np.arange(len(here)), moves[here]]]
        if len(bad):
            raise RuntimeError(Errors.E073.format(system=system.name, move=names[moves[bad[0]]],
                                                   row=rows[bad[0]]))
        if with_features:
            feats, labs = system.get_features(st)
            run.steps.append((rows[here], feats[here], labs[here], actions[here], moves_ok,
                              system.step_record(st)[here]))
        counts[:] += np.bincount(moves[here], minlength=len(names))
        return actions

    run.trees = drive(system, st, choose, oracle=oracle, keep_trees=keep_trees, decode=False, bounded=True)
    run.moves = Counter({names[m]: int(c) for m, c in enumerate(counts) if c})
    return run


def oracle_check(system: TransitionSystem, trees: Sequence[Tree], batch_size: int = 256) -> Dict:
    """Run the static oracle over gold trees: how many it reproduces exactly,
    how many the system cannot cover, and the transitions it makes."""
    prepared = [system.prepare_tree(h, l) for h, l in trees]
    reproduced = 0
    counts: Counter = Counter()
    for idx in batches([len(h) for h, _ in trees], batch_size):
        run = oracle_run(system, [prepared[i] for i in idx])
        counts.update(run.moves)
        for i, tree in zip(idx, run.trees):
            reproduced += system.decode_tree(*tree) == (list(trees[i][0]), list(trees[i][1]))
    return {"trees": len(trees), "reproduced": reproduced,
            "not_covered": sum(not system.covers(h, l) for h, l in trees),
            "transitions": dict(sorted(counts.items()))}


# --- the model ----------------------------------------------------------------------

def exploration_run(system: TransitionSystem, st: States, oracle: Oracle, score: Callable, exploration,
                    offsets: np.ndarray, compact_below: float = COMPACT_BELOW, keep_order: bool = False
                    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parse a batch for training with exploration (Goldberg & Nivre 2012's
    error exploration): at each step every live state records its features and
    its targets (``oracle.targets``), then follows the model's best valid
    action with probability ``exploration`` (one for all rows, or an array
    of one per row), else its best-scored target; with ``keep_order``,
    always its best-scored target in the rows ``oracle.kept`` names (swap's
    SWAP, 2-planar's SWITCH and crossing links).
    ``score(features, label features)`` -> [rows, n_actions] scores.

    Returns (feature tokens, label features, targets, valid actions) of
    every state visited, one row each. The random draws are made for the
    original rows, so the run does not depend on when finished rows are
    dropped."""
    B0 = st.B
    exploration = np.broadcast_to(np.asarray(exploration, dtype=np.float64), (B0,))
    ids, labs, targets, valids = [], [], [], []

    def choose(st: States, oracle: Oracle, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        f, l, *more = system.model_inputs(st, offsets)
        scores = score(f, l, *more)
        valid, target = oracle.targets(st)
        ids.append(f[live]), labs.append(l[live]), targets.append(target[live]), valids.append(valid[live])
        predicted = np.where(valid, scores, -np.inf).argmax(axis=1)
        best_target = np.where(target, scores, -np.inf).argmax(axis=1)
        follow = (np.random.random(B0) < exploration)[rows]
        if keep_order:
            follow &= ~oracle.kept(st, target)
        return np.where(live, np.where(follow, predicted, best_target), -1)

    drive(system, st, choose, oracle=oracle, offsets=offsets, compact_below=compact_below)
    return np.concatenate(ids), np.concatenate(labs), np.concatenate(targets), np.concatenate(valids)


def init_states(system: TransitionSystem, lengths: Sequence[int], finish: bool,
                tags: Optional[Sequence[Sequence[str]]]) -> States:
    """The initial states; the words' tags go to the systems that read them
    (top-down's FIRST lookahead)."""
    if tags is None:
        return system.init_states(lengths, finish=finish)
    return system.init_states(lengths, finish=finish, tags=tags)


def greedy_parse(system: TransitionSystem, score: Callable, lengths: Sequence[int], offsets: np.ndarray,
                 finish: bool = False, observer: Optional[Callable] = None,
                 tags: Optional[Sequence[Sequence[str]]] = None) -> List[Tree]:
    """Parse units of the given lengths (their first tokens at ``offsets``
    among the scorer's tokens) with the best-scored valid action of each
    state (``finish``: under the tree constraint; ``tags``: the words' tags,
    for the systems that read them)."""
    st = init_states(system, lengths, finish, tags)

    def choose(st: States, oracle: None, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
        return system.best_actions(score(*system.model_inputs(st, offsets)), st, live)

    return drive(system, st, choose, offsets=offsets, keep_trees=True, observer=observer)


def beam_parse(system: TransitionSystem, score: Callable, lengths: Sequence[int], offsets: np.ndarray,
               beam_width: int, density: float = 0.0, merge: bool = True, finish: bool = False,
               tags: Optional[Sequence[Sequence[str]]] = None) -> List[Tree]:
    """Parse with beam search: each sentence keeps the ``beam_width`` states
    of highest total score, the sum of the log-probabilities of their actions
    (the model's softmax over the valid actions, as it is trained). A beam's
    states are rows of the batch, best first; a finished state stays in its
    beam as it is, competing with the unfinished ones, until the whole beam
    is final; the sentence's tree is then its best state's. With
    ``beam_width`` 1 this is ``greedy_parse``.

    ``density``: drop the candidates whose probability is below ``density``
    times that of their sentence's best candidate (spaCy's ``beam_density``;
    0: none dropped).
    ``merge``: merge equivalent states (Huang & Sagae 2010, section 3): two
    states of a sentence that neither the model nor the system can tell
    apart from here on (``States.signature``: both stacks and the buffer
    whole, with what the features read of their words) become one, the
    better scored. This is the Viterbi step of their dynamic programme;
    predictor pointers are not needed, since the signature holds the stacks
    whole: merged states differ only in arcs among words out of play. A
    merge frees the slot for the next step."""
    width = max(int(beam_width), 1)
    B = len(lengths)
    st = init_states(system, lengths, finish, tags)
    trees: List[Optional[Tree]] = [None] * B
    recorded = np.zeros(B, dtype=bool)  # sentences whose beam is all final, tree taken
    log_density = np.log(density) if density > 0 else -np.inf
    beam = {"total": np.zeros(B), "rows": np.arange(B)}  # per row: total score, sentence

    def choose(st: States, oracle: None, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray):
        total = beam["total"]
        mine = np.flatnonzero(~recorded[rows])  # the rows of sentences still parsing
        if merge and len(mine) > 1:
            mine = mine[_first_of_each(rows[mine], st.signature()[mine])]
        going = mine[live[mine]]
        k, a, c = np.zeros(0, dtype=INT), np.zeros(0, dtype=INT), np.zeros(0)
        if len(going):
            valid = system.valid_actions(st)[going]
            scores = np.asarray(score(*(x[going] for x in system.model_inputs(st, offsets))))
            k, a, c = _candidates(system, scores, valid, total[going], width)
        finished = mine[~live[mine]]  # they stay as they are (action -1)
        r, a, c, sent, lead = _best_of_each((k, a, c), going, finished, total, rows, width)
        kept = (np.arange(len(sent)) - lead < width) & (c >= c[lead] + log_density)
        beam["total"], beam["rows"] = c[kept], sent[kept]
        return r[kept], a[kept]

    def observe(system: TransitionSystem, st: States, actions: np.ndarray, offsets: np.ndarray) -> None:
        rows = beam["rows"]
        if not len(rows):
            return
        first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        done = np.logical_and.reduceat(system.is_final(st), first)
        new = first[done & ~recorded[rows[first]]]
        for r, tree in zip(new, system.output_trees(st, new)):
            trees[rows[r]] = tree
        recorded[rows[new]] = True

    drive(system, st, choose, offsets=offsets, compact_below=0.0, observer=observe)
    lost = [k for k, tree in enumerate(trees) if tree is None]
    if lost:  # a beam always has a move
        unexpected(Errors.E093.format(system=system.name, count=len(lost), sentences=B))
        lost_tags = [tags[k] for k in lost] if tags is not None else None
        for k, tree in zip(lost, greedy_parse(system, score, [lengths[k] for k in lost], offsets[lost], finish,
                                              tags=lost_tags)):
            trees[k] = tree
    return trees


@dataclass
class BeamRun:
    """What ``beam_train_run`` found: the model inputs and valid actions of
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


def beam_train_run(system: TransitionSystem, st: States, oracle: Oracle, score: Callable, width: int,
                   offsets: np.ndarray) -> BeamRun:
    """Beam search for training, with a global loss and early update
    (Collins & Roark 2004; with a softmax over the beam, Zhou et al. 2015,
    Andor et al. 2016): each sentence is parsed with a beam of ``width``
    states, scored as ``beam_parse`` scores them (the sum of the
    log-probabilities of the model's softmax over valid actions), beside its
    gold derivation (the static oracle's). When the gold prefix falls out of
    the beam, or the beam is final, the sentence's loss is the negative
    log-probability of the gold sequence under a softmax over the beam's
    sequences and the gold one; its gradient reaches every scored state on
    those sequences' paths (a history of back pointers, the sequences'
    shared prefixes cancelling)."""
    width = max(int(width), 1)
    B = st.B
    nodes_parent: List[np.ndarray] = []  # per step: each new node's parent (-1: the initial state)
    nodes_state: List[np.ndarray] = []  # ... the scored state it leaves
    nodes_action: List[np.ndarray] = []  # ... the action it takes
    n_nodes = [0]
    inputs: List[Tuple[np.ndarray, ...]] = []
    valids: List[np.ndarray] = []
    n_states = [0]
    finals: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (nodes, totals, gold) per sentence
    early = [0]
    # per row: total score, last node, on the gold path
    beam = {"total": np.zeros(B), "node": np.full(B, -1, dtype=INT), "gold": np.ones(B, dtype=bool)}

    def add_nodes(parent: np.ndarray, state: np.ndarray, action: np.ndarray) -> np.ndarray:
        ids = n_nodes[0] + np.arange(len(parent), dtype=INT)
        nodes_parent.append(parent), nodes_state.append(state), nodes_action.append(action)
        n_nodes[0] += len(parent)
        return ids

    def choose(st: States, oracle: Oracle, rows: np.ndarray, offsets: np.ndarray, live: np.ndarray):
        total, node, gold = beam["total"], beam["node"], beam["gold"]
        going = np.flatnonzero(live)
        valid = system.valid_actions(st)
        logp = np.zeros((0, valid.shape[1]))
        state_of = np.full(st.B, -1, dtype=INT)
        if len(going):
            x = tuple(part[going] for part in system.model_inputs(st, offsets))
            logp = _log_softmax(np.asarray(score(*x), dtype=np.float64), valid[going])
            inputs.append(x), valids.append(valid[going])
            state_of[going] = n_states[0] + np.arange(len(going), dtype=INT)
            n_states[0] += len(going)
        at = np.full(st.B, -1, dtype=INT)
        at[going] = np.arange(len(going))
        gold_action = np.where(live, oracle.static_actions(st), -1)
        cand = system.limit_candidates(total[going, None] + logp)
        finished = np.flatnonzero(~live)
        r, a, c, sent, lead = _best_of_each(_top_of_rows(cand, width), going, finished, total, rows, width)
        kept = np.arange(len(sent)) - lead < width
        on_gold = gold[r] & (a == gold_action[r])
        # the gold successor of each sentence: from its row on the gold path
        g = np.flatnonzero(gold)
        g_action = gold_action[g]
        g_total = total[g] + np.where(g_action >= 0, logp[at[g], np.maximum(g_action, 0)], 0.0)
        lost = ~np.isin(rows[g], sent[kept & on_gold])  # the gold prefix fell out of the beam
        new = kept & (a >= 0)
        new_node = node[r].copy()
        new_node[new] = add_nodes(node[r[new]], state_of[r[new]], a[new])
        stop = np.isin(sent, rows[g[lost]])
        if lost.any():  # early update: the sentence's beam and its gold sequence
            gl = g[lost]
            fresh = g_action[lost] >= 0
            g_node = node[gl].copy()
            g_node[fresh] = add_nodes(node[gl[fresh]], state_of[gl[fresh]], g_action[lost][fresh])
            for s_row, s_node, s_total in zip(rows[gl], g_node, g_total[lost]):
                mine = kept & (sent == s_row)
                finals.append((np.r_[new_node[mine], s_node], np.r_[c[mine], s_total],
                               np.r_[np.zeros(mine.sum(), dtype=bool), True]))
            early[0] += len(gl)
        keep = kept & ~stop
        beam["total"], beam["node"], beam["gold"] = c[keep], new_node[keep], on_gold[keep]
        beam["sent"] = sent[keep]
        return r[keep], a[keep]

    drive(system, st, choose, oracle=oracle, offsets=offsets, compact_below=0.0)
    sent = beam.get("sent", np.arange(B))
    for s_row in np.unique(sent):  # the sentences whose beam is final
        mine = sent == s_row
        finals.append((beam["node"][mine], beam["total"][mine], beam["gold"][mine]))
    return _beam_gradient(finals, nodes_parent, nodes_state, nodes_action, inputs, valids, early[0])


def _beam_gradient(finals, nodes_parent, nodes_state, nodes_action, inputs, valids, early: int) -> BeamRun:
    """The loss and gradient of ``beam_train_run``'s sequences: a softmax
    over each sentence's final sequences (their totals), the gold one the
    target; each sequence's weight (probability - gold) flows back along its
    nodes to the (state, action) pairs it took."""
    n = sum(len(p) for p in nodes_parent)
    weight = np.zeros(n + 1)  # the last slot: the initial state (-1)
    loss = 0.0
    missing = sum(not is_gold.any() for _, _, is_gold in finals)
    if missing:  # the gold sequence is always among them
        unexpected(Errors.E094.format(system="beam training", count=missing))
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


def _top_of_rows(cand: np.ndarray, width: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def _candidates(system: TransitionSystem, scores: np.ndarray, valid: np.ndarray, total: np.ndarray,
                width: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A beam step's candidates from the states' scores [states, actions]:
    the ``width`` best valid actions of each state that the system puts
    forward, as (state, action, total), the total the state's plus the
    action's log-probability. What ``_top_of_rows(system.limit_candidates(
    total + _log_softmax(scores, valid)), width)`` gives, with the log-softmax
    taken only where it is kept: a row's ranking is its scores' ranking, so
    the candidates are chosen on the masked scores (in the model's precision)
    and normalized after."""
    masked = np.where(valid, scores, -np.inf)
    norm = _log_norm(masked)
    k, a, s = _top_of_rows(system.limit_candidates(masked), width)
    return k, a, total[k] + (s.astype(np.float64) - norm[k, 0])


def _best_of_each(cand: Tuple[np.ndarray, np.ndarray, np.ndarray], going: np.ndarray, finished: np.ndarray,
                  total: np.ndarray, rows: np.ndarray, width: int) -> Tuple[np.ndarray, ...]:
    """A beam step's candidates, by sentence, best first: (row, action, total
    score, sentence, the position of the sentence's best) of the candidates
    ``cand`` (position among ``going``, action, total; ``_top_of_rows``) of
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


def _log_softmax(scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Log of the softmax over each row's valid actions (-inf elsewhere), float64."""
    masked = np.where(valid, scores, -np.inf)
    return masked.astype(np.float64) - _log_norm(masked)


def _first_of_each(groups: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Positions of the first row of each distinct (group, key row), in order."""
    both = np.ascontiguousarray(np.concatenate([groups[:, None], keys], axis=1))
    as_bytes = both.view(np.dtype((np.void, both.dtype.itemsize * both.shape[1]))).ravel()
    _, first = np.unique(as_bytes, return_index=True)
    return np.sort(first)


def batches(lengths: Sequence[int], size: int) -> List[np.ndarray]:
    """Indices grouped into batches of similar length (less padding)."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i:i + size] for i in range(0, len(order), size)]
