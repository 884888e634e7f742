"""Beam search on the batched core (``driver.beam_parse``): width 1 is the
greedy parse, a wide enough beam finds the model's best derivation (checked
against exhaustive search), and merging equivalent states loses nothing."""
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_planar.parser.shared.softmax import log_softmax
from spacy_planar.parser.transition.beam import candidates, top_of_rows
from spacy_planar.parser.transition.catalog import SYSTEMS, make_system
from spacy_planar.parser.transition.driver import beam_parse, greedy_parse
from spacy_planar.parser.systems.state import INT
from spacy_planar.trees.algorithms import tree_error
from reference import move_log_probs

LABELS = ["a", "b"]


def feature_scorer(system, n_tokens, seed):
    """A fixed random model that reads what the parser's reads: the features
    (a score per (slot, token, action) and per (label slot, label, action),
    summed) and, for top-down, its arc rows (PRED(k) adds a score of the pair
    (h, k) and of (sibling, k), as weighted prediction does). Continuous: no
    ties."""
    rng = np.random.default_rng(seed)
    A = system.n_scored
    tok = rng.normal(size=(len(system.features), n_tokens + 1, A))
    lab = rng.normal(size=(len(system.label_features), len(system.labels) + 1, A))
    pair = rng.normal(size=(2, n_tokens + 1, n_tokens))  # (h or sibling; -1: the root / none) x candidate

    def score(ids, labs, arcs=None):
        out = np.zeros((len(ids), A))
        for f in range(ids.shape[1]):
            out += tok[f, ids[:, f]]  # -1 (absent) reads the last row
        for f in range(labs.shape[1]):
            out += lab[f, labs[:, f]]
        if arcs is not None:  # PRED(k), k = 0 .. T - 1: word k is token arcs[:, 2] + k - 1
            T = int(arcs[0, 3] - arcs[0, 2]) + 2
            k = np.clip(arcs[:, 2:3] + np.arange(T)[None, :] - 1, 0, n_tokens - 1)
            rows = np.arange(len(arcs))[:, None]
            pred = pair[0, arcs[:, 0:1], k] + pair[1, arcs[:, 1:2], k]
            out = np.concatenate([out[:, :-1], out[:, -1:] + pred[rows, np.arange(T)[None, :]]], axis=1)
        return out.astype(np.float32)

    return score


def offsets_of(lengths):
    return np.cumsum([0] + list(lengths[:-1])).astype(INT)


def exhaustive_best(system, score, n, offset, finish):
    """The highest total log-probability of a complete derivation of one
    sentence and its tree, by trying every sequence of valid actions: a
    state's best completion is searched once, however many derivations reach
    it (a state is all its fields; the first best action in order, as a walk
    of every derivation in order would find)."""
    memo = {}

    def best(state):
        key = tuple(None if getattr(state, f) is None else getattr(state, f).tobytes() for f in state.ROW_FIELDS)
        if key in memo:
            return memo[key]
        if system.is_final(state)[0]:
            memo[key] = (0.0, system.output_trees(state, [0], decode=False)[0])
            return memo[key]
        inputs = system.model_inputs(state, np.array([offset], dtype=INT))
        valid = system.valid_actions(state)
        rules = system.ud_label_rules(state)
        if rules is not None:  # parsing keeps to them (swap)
            valid &= rules
        scores = np.asarray(score(*inputs), dtype=np.float64)[:, :valid.shape[1]]
        logp = log_softmax(np, scores, valid, fill=-np.inf)[0]
        found = (-np.inf, None)
        for a in np.flatnonzero(valid[0]):
            nxt = state.select(np.array([0]))
            system.apply(nxt, np.array([a]))
            rest, tree = best(nxt)
            if logp[a] + rest > found[0]:
                found = (logp[a] + rest, tree)
        memo[key] = found
        return found

    return list(best(system.init_states([n], finish=finish)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 25), min_size=1, max_size=6), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(sorted(SYSTEMS)), st.booleans())
def test_width_one_is_the_greedy_parse(lengths, seed, name, finish):
    system = make_system(name, LABELS)
    score = feature_scorer(system, sum(lengths), seed)
    offsets = offsets_of(lengths)
    greedy = greedy_parse(system, score, lengths, offsets, finish=finish)
    for merge in (False, True):  # the shipped setting (beam_merge false), and merging
        assert beam_parse(system, score, lengths, offsets, 1, density=0.0, merge=merge, finish=finish) == greedy


def greedy_moves(system, score, n, offset, finish):
    """A reference loop: one sentence parsed greedily, the total log-probability
    of its moves and, per word, that of the move that gave it its head (0.0
    where none did)."""
    state = system.init_states([n], finish=finish)
    total, move_logp, stay = 0.0, np.zeros(n + 1), np.zeros(n + 1)
    move_of = system.actions.table.move_of
    while not system.is_final(state)[0]:
        valid = system.valid_actions(state)
        rules = system.ud_label_rules(state)
        if rules is not None:
            valid &= rules
        scores = np.asarray(score(*system.model_inputs(state, np.array([offset], dtype=INT))))
        logp = move_log_probs(scores[:, :valid.shape[1]], valid)[0]
        a = int(np.argmax(np.where(valid[0], logp, -np.inf)))
        attaching = system.attaching(state)
        for move, words in (attaching or {}).items():  # a headless word this step could attach
            w = int(words[0])
            if w >= 0 and state.heads[0, w] < 0:
                p = sum(np.exp(logp[k]) for k in range(len(move_of)) if move_of[k] == move and valid[0, k])
                stay[w] += np.log(max(1.0 - p, 1e-12))
        headless = state.heads[0, :n + 1] < 0
        system.apply(state, np.array([a]))
        move_logp[headless & (state.heads[0, :n + 1] >= 0)] = logp[a]
        total += logp[a]
    heads = system.output_trees(state, [0], decode=False)[0][0]
    for i, h in enumerate(heads):  # a root no move attached: its probability of staying headless
        if h == 0 and move_logp[i + 1] == 0.0:
            move_logp[i + 1] = stay[i + 1]
    return total, move_logp[1:].tolist()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 25), min_size=1, max_size=6), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(sorted(SYSTEMS)), st.booleans())
def test_the_beam_records_each_arcs_move(lengths, seed, name, finish):
    """Kept final states carry, per word, the log-probability of the move
    that attached it (what ``kbest.arc_confidence`` reads): with width 1,
    the reference greedy loop's."""
    system = make_system(name, LABELS)
    score = feature_scorer(system, sum(lengths), seed)
    offsets = offsets_of(lengths)
    finals = []
    trees = beam_parse(system, score, lengths, offsets, 1, density=0.0, merge=False, finish=finish, finals=finals)
    for n, offset, tree, kept in zip(lengths, offsets, trees, finals):
        (total, final_tree, move_logp), = kept
        ref_total, ref_moves = greedy_moves(system, score, n, int(offset), finish)
        assert final_tree == tree and total == pytest.approx(ref_total)
        assert move_logp == pytest.approx(ref_moves, abs=1e-7)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 25), min_size=1, max_size=6), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(sorted(SYSTEMS)), st.integers(2, 8), st.sampled_from([0.0, 0.01]))
def test_beams_give_one_tree_per_sentence(lengths, seed, name, width, density):
    system = make_system(name, LABELS)
    score = feature_scorer(system, sum(lengths), seed)
    trees = beam_parse(system, score, lengths, offsets_of(lengths), width, density=density, merge=False, finish=True)
    assert [len(h) for h, _ in trees] == list(lengths)
    assert all(tree_error(h) is None for h, _ in trees)


# sentences small enough to try every derivation (2-planar and swap have many)
EXHAUSTIVE = [("arc_eager", LABELS, [3, 4, 4]), ("planar", LABELS, [3, 3]), ("swap", LABELS, [3, 3]),
              ("two_planar", [], [3]), ("top_down", LABELS, [3, 4, 2])]


@functools.lru_cache(maxsize=None)
def exhaustive_trees(name, labels, lengths, finish):
    """exhaustive_best's tree of each sentence of EXHAUSTIVE's case (the
    scores of seed 7), searched once for both beams (merging or not)."""
    system = make_system(name, list(labels))
    score = feature_scorer(system, sum(lengths), 7)
    return [exhaustive_best(system, score, n, int(offset), finish)[1] for n, offset in zip(lengths,
                                                                                           offsets_of(lengths))]


@pytest.mark.parametrize("name,labels,lengths", EXHAUSTIVE)
@pytest.mark.parametrize("merge", [False, True])
def test_a_wide_beam_finds_the_best_derivation(name, labels, lengths, merge):
    """With room for every derivation, the beam's tree is the one exhaustive
    search finds (merging equivalent states must keep it)."""
    system = make_system(name, labels)
    score = feature_scorer(system, sum(lengths), 7)
    offsets = offsets_of(lengths)
    for finish in {"two_planar": (True,), "top_down": (False,)}.get(name, (False, True)):
        trees = beam_parse(system, score, lengths, offsets, 100000, density=0.0, merge=merge, finish=finish)
        assert list(trees) == exhaustive_trees(name, tuple(labels), tuple(lengths), finish)


def ud_rule_breaches(trees):
    """Arcs between words labelled root, and head-first relations (conj,
    flat:name ...) whose head follows its dependent."""
    out = []
    for heads, labels in trees:
        for d, (h, label) in enumerate(zip(heads, labels), start=1):
            if h != 0 and (label == "root" or (label.split(":")[0] in ("conj", "flat") and h > d)):
                out.append((h, d, label))
    return out


@pytest.mark.parametrize("width", [1, 8])
def test_swap_parses_keep_uds_label_rules(width, monkeypatch):
    """A model that favours the root label and conj / flat:name everywhere:
    swap's parses (greedy and beam) still label no arc between words root
    and give no head-first relation a head after its dependent, where the
    same model without the rules would."""
    system = make_system("swap", ["conj", "flat:name", "obj", "nsubj"])
    lengths = [9, 14, 6, 20, 11]
    base = feature_scorer(system, sum(lengths), 3)
    favoured = np.isin(system.table.label_of, [system.label_ids[x] for x in ("root", "conj", "flat:name")])

    def score(*inputs):
        return base(*inputs) + np.float32(4.0) * favoured

    def parse():
        if width == 1:
            return greedy_parse(system, score, lengths, offsets_of(lengths), finish=True)
        return beam_parse(system, score, lengths, offsets_of(lengths), width, density=0.0, merge=False, finish=True)

    trees = parse()
    assert all(tree_error(heads) is None for heads, _ in trees)
    assert ud_rule_breaches(trees) == []
    monkeypatch.setattr(system, "ud_label_rules", lambda st: None)
    assert len(ud_rule_breaches(parse())) >= 3


def test_signature_ignores_arcs_out_of_play():
    """Arc-eager on four words: 1 <- 2 <- 3 with 1's label a or b. Word 1
    and 2 are out of play, so the two states are one to the parser from
    here on (equal signatures, merged), though their trees differ; one
    step earlier, word 2 is still in play and its dependent's label tells
    them apart."""
    system = make_system("arc_eager", LABELS)

    def act(move, label):
        return system.table.action(np.array([move]), np.array([system.label_ids[label]]))
    from spacy_planar.parser.systems.state import LEFT, SHIFT
    states = []
    for first in ("a", "b"):
        state = system.init_states([4])
        for i, action in enumerate([act(SHIFT, "a"), act(LEFT, first), act(SHIFT, "a"), act(LEFT, "a")]):
            system.apply(state, action)
            if i == 1:
                states.append(state.signature())
        states.append((state.signature(), state.trees(system.root_id)))
    (early_a, (late_a, tree_a)), (early_b, (late_b, tree_b)) = (states[0], states[1]), (states[2], states[3])
    assert (late_a == late_b).all() and tree_a != tree_b
    assert not (early_a == early_b).all()


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.integers(0, 8), st.integers(1, 6), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_candidates_are_the_best_of_thelog_softmax(n_states, n_pred, width, seed, top_down):
    """The parse's candidates, chosen on the masked float32 scores and
    normalized after, are those of the full log-softmax: the same states,
    actions and totals (top-down: with its prediction-size limit)."""
    rng = np.random.default_rng(seed)
    system = make_system("top_down", ["a", "b"], pred_size=2) if top_down else make_system("arc_eager", LABELS)
    n_actions = len(system.table) + (n_pred if top_down else 0)
    scores = rng.normal(size=(n_states, n_actions)).astype("float32")
    valid = rng.random((n_states, n_actions)) < 0.6
    valid[np.arange(n_states), rng.integers(0, n_actions, n_states)] = True
    total = rng.normal(size=n_states) * 10
    k, a, c = candidates(system, scores, valid, total, width)
    full = log_softmax(np, scores.astype(np.float64), valid, fill=-np.inf)
    k0, a0, c0 = top_of_rows(system.limit_candidates(total[:, None] + full), width)
    assert k.tolist() == k0.tolist() and a.tolist() == a0.tolist()
    assert np.allclose(c, c0, rtol=0, atol=1e-6)
    assert (c <= total[k] + 1e-9).all()
