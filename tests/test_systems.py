import functools

import numpy as np
import pytest
from conftest import fixture_path, treebank
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_run
from strategies import labelled_trees

from spacy_planar.io.conllu import read_conllu
from spacy_planar.parser.transition.catalog import SYSTEMS, make_oracle, make_system, system_for_trees
from spacy_planar.parser.shared.codec import TreeCodec
from spacy_planar.parser.transition.driver import oracle_check, oracle_run
from spacy_planar.parser.systems.state import MOVE_NAMES, SWITCH
from spacy_planar.trees.algorithms import is_planar, is_projective, min_planes, projective_order, tree_error

VARIANTS = [("arc_eager", {}), ("planar", {}), ("two_planar", {}), ("swap", {"oracle": "eager"}), ("swap",
                                                                                                   {"oracle": "lazy"})]
# with the systems that have a static oracle only (no exploration)
STATIC_VARIANTS = VARIANTS + [("top_down", {})]

# Figure 1 of Nivre, Kuhlmann & Hall (2009): "Who did you send the letter to ?"
WHO_HEADS = [7, 0, 2, 2, 6, 4, 4, 2]
WHO_LABELS = ["pobj", "root", "nsubj", "vg", "det", "obj", "adv", "punct"]


@functools.lru_cache(maxsize=None)
def _treebank_trees(name):
    """A training split's trees (None: the test treebank's), read once per test run (en_ewt takes seconds)."""
    path = fixture_path() if name is None else treebank(name)
    return tuple((s.heads and tuple(s.heads), tuple(s.deprels)) for s in read_conllu(path))


def gold_trees(name=None, every=1):
    return [(h and list(h), list(l)) for i, (h, l) in enumerate(_treebank_trees(name)) if i % every == 0]


def test_projective_order_of_figure_1():
    # "Did you send the letter who to ?"
    assert projective_order(WHO_HEADS).tolist() == [0, 6, 1, 2, 3, 4, 5, 7, 8]


@pytest.mark.parametrize("name,kw", STATIC_VARIANTS)
def test_oracle_reproduces_figure_1(name, kw):
    trees = [(WHO_HEADS, WHO_LABELS)]
    res = oracle_check(TreeCodec(system_for_trees(name, trees, **kw)), trees)
    # not planar: link 1-7 (who <- to) crosses 2-8 (did -> ?); 2-planar
    assert (res["reproduced"], res["not_covered"]) == ((0, 1) if name == "planar" else (1, 0))


def test_lazy_swaps_later_on_figure_1():
    trees = [(WHO_HEADS, WHO_LABELS)]
    eager = oracle_check(TreeCodec(system_for_trees("swap", trees, oracle="eager")), trees)["transitions"]["SWAP"]
    lazy = oracle_check(TreeCodec(system_for_trees("swap", trees, oracle="lazy")), trees)["transitions"]["SWAP"]
    assert 0 < lazy < eager


def check_complete(name, kw, trees):
    system = system_for_trees(name, trees, **kw)
    res = oracle_check(TreeCodec(system), trees)
    assert res["reproduced"] == res["trees"] - res["not_covered"]
    if name == "swap":
        assert res["not_covered"] == 0
    if name == "planar":
        assert res["not_covered"] == sum(not is_planar(h) for h, _ in trees)
    if name == "two_planar":
        assert res["not_covered"] == sum(min_planes(h) > 2 for h, _ in trees)
    return system, res


@pytest.mark.parametrize("name,kw", STATIC_VARIANTS)
def test_oracle_complete_on_the_test_treebank(name, kw):
    trees = gold_trees()
    system, res = check_complete(name, kw, trees)
    if name in ("arc_eager", "top_down"):
        # every projectivized tree is derived exactly (before deprojectivize)
        prepared = [system.prepare_tree(h, l) for h, l in trees]
        got = oracle_run(system, prepared).trees
        assert got == [(list(h), list(l)) for h, l in prepared]


@pytest.mark.data
@pytest.mark.parametrize("treebank_name", ["got_proiel", "en_ewt", "pt_bosque"])
@pytest.mark.parametrize("name,kw", STATIC_VARIANTS)
def test_oracle_complete_on_samples(treebank_name, name, kw):
    check_complete(name, kw, gold_trees(treebank_name, every=1 if treebank_name == "got_proiel" else 20))


@pytest.mark.parametrize("treebank_name", [None, pytest.param("pt_bosque", marks=pytest.mark.data),
                                           pytest.param("en_ewt", marks=pytest.mark.data)])
def test_lazy_oracle_needs_fewer_swaps(treebank_name):
    trees = gold_trees(treebank_name, every=1 if treebank_name is None else 3)
    swaps = {o: oracle_check(TreeCodec(system_for_trees("swap", trees, oracle=o)), trees)["transitions"]["SWAP"]
             for o in ("eager", "lazy")}
    assert 0 < swaps["lazy"] < swaps["eager"]


def test_two_planar_switches_only_when_needed():
    trees = gold_trees()
    planar = [t for t in trees if is_planar(t[0])]
    res = oracle_check(TreeCodec(system_for_trees("two_planar", planar)), planar)
    assert "SWITCH" not in res["transitions"]
    crossing = [t for t in trees if not is_planar(t[0])]
    res = oracle_check(TreeCodec(system_for_trees("two_planar", crossing)), crossing)
    assert 0 < res["transitions"]["SWITCH"] < 4 * len(crossing)


PROMISE = {
    "arc_eager": is_projective,
    "planar": is_planar,
    "two_planar": lambda h: min_planes(h) <= 2,
    "swap": lambda h: True,
    "top_down": lambda h: is_projective(h) and sum(1 for x in h if x == 0) == 1,
}

# Figure 2 of Hayashi et al. (2012): "I saw a girl"
FIGURE_2 = ([2, 0, 4, 2], ["nsubj", "root", "det", "obj"])


def test_top_down_derives_figure_2_as_the_paper():
    system = system_for_trees("top_down", [FIGURE_2])
    st = system.init_states([4])
    oracle = make_oracle(system, st, [system.label_tree(system.prepare_tree(*FIGURE_2))])
    names, states = [], []
    while not system.is_final(st)[0]:
        moves, labels = oracle.static(st)
        names.append(system.move_names[moves[0]] + (f"({labels[0]})" if system.move_names[moves[0]] == "PRED" else ""))
        system.apply(st, system.action_of(moves, labels))
        i, h, r = system.ihr(st)
        states.append((int(i[0]), int(h[0]), int(r[0]) + 1))
    assert names == ["PRED(2)", "PRED(1)", "SCAN", "COMP-LEFT", "SCAN", "PRED(4)", "PRED(3)", "SCAN", "COMP-LEFT",
                     "SCAN", "COMP-RIGHT", "COMP-RIGHT"]
    # ⟨i, h, j⟩ after each step, the "state information" column of Figure 2
    assert states == [(1, 2, 5), (1, 1, 2), (2, 1, 2), (2, 2, 5), (3, 2, 5), (3, 4, 5), (3, 3, 4), (4, 3, 4),
                      (4, 4, 5), (5, 4, 5), (5, 2, 5), (5, 0, 5)]
    assert st.trees(system.root_id) == [system.label_tree(FIGURE_2)]


def test_top_down_takes_exactly_3n_steps():
    trees = [t for t in gold_trees(every=3)]
    system = system_for_trees("top_down", trees)
    prepared = [system.prepare_tree(h, l) for h, l in trees]
    st = system.init_states([len(h) for h, _ in prepared])
    oracle = make_oracle(system, st, [system.label_tree(t) for t in prepared])
    while not system.is_final(st).all():
        system.apply(st, np.where(system.is_final(st), -1, oracle.static_actions(st)))
    assert (st.steps == 3 * st.n).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(sorted(SYSTEMS)))
def test_random_valid_actions_give_promised_trees(lengths, seed, name):
    system = make_system(name, ["a", "b"])
    states, steps = random_run(system, lengths, np.random.default_rng(seed))  # raises past the bound
    assert all(s <= system.max_steps(n) for s, n in zip(steps, lengths))
    for heads, _ in states.trees(system.root_id):
        assert tree_error(heads) is None
        assert PROMISE[name](heads)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(["planar", "two_planar"]))
def test_tree_constraint_keeps_the_promise_and_ends_in_one_tree(lengths, seed, name):
    """Under the tree constraint (UNSHIFT at the end), random valid actions
    still give planar trees (planar) within the bound, never stuck; 2-planar's
    are trees, and 2-planar but for the rare rescue SWITCH
    (``test_two_planar_rescue_switch_is_rare``)."""
    system = make_system(name, ["a", "b"])
    states, steps = random_run(system, lengths, np.random.default_rng(seed), finish=True)
    assert all(s <= system.max_steps(n) for s, n in zip(steps, lengths))
    for b, (heads, _) in enumerate(states.trees(system.root_id)):
        assert tree_error(heads) is None
        assert PROMISE[name](heads) or name == "two_planar"
        # bookkeeping: the roots are the words gone headless and those left on the stacks
        on_stacks = {int(w) for s in range(states.stack.shape[1]) for w in states.stack[b, s, :states.sp[b, s]]}
        assert sum(1 for h in heads if h == 0) == states.roots_out[b] + sum(1 for w in on_stacks if heads[w - 1] == 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(["arc_eager", "swap", "top_down", "planar", "two_planar"]))
def test_single_root_is_a_rule_of_the_moves(lengths, seed, name):
    """Under ``finish`` (the component's single_root), arc-eager (UNSHIFT),
    swap (the root's arc last), top-down (by construction), planar and
    2-planar (their tree constraints) end every random walk over valid moves
    in a tree with exactly one root, labelled with the root label, within the
    bound and never stuck (2-planar's rare third plane: above)."""
    system = make_system(name, ["a", "b"])
    states, steps = random_run(system, lengths, np.random.default_rng(seed), finish=True)
    assert all(s <= system.max_steps(n) for s, n in zip(steps, lengths))
    for heads, labels in system.output_trees(states):
        assert tree_error(heads) is None
        assert PROMISE[name](heads) or name == "two_planar"
        assert [labels[w] for w, h in enumerate(heads) if h == 0] == ["root"]


@pytest.mark.parametrize("name,kw", VARIANTS[:2] + VARIANTS[3:])
def test_static_oracle_is_valid_under_single_root(name, kw):
    """The single-root rule never forbids a move of the static oracle on a
    gold tree with one root: under ``finish`` it derives the same trees
    (planar: on the planar ones, 9 of them not projective)."""
    trees = gold_trees(None, every=1)
    system = system_for_trees(name, trees, **kw)
    trees = [t for t in trees if name != "planar" or system.covers(*t)]
    prepared = [system.prepare_tree(h, l) for h, l in trees]
    free = oracle_run(system, prepared)
    bound = oracle_run(system, prepared, finish=True)
    assert bound.trees == free.trees and bound.moves == free.moves


def test_two_planar_rescue_switch_is_rare():
    """2-planar's tree constraint lets an unshifted word whose stack holds
    nothing outside its tree SWITCH to the other stack (one root by the
    moves); its link there may cross a link of that plane (a third plane).
    On 3,000 random walks of 8-20 words that happens below 0.5% of the time
    (6 of the 3,000 with seed 0), and never without the constraint."""
    system = make_system("two_planar", ["a", "b"])
    lengths = [8, 12, 20] * 1000
    for finish in (False, True):
        states, _ = random_run(system, lengths, np.random.default_rng(0), finish=finish)
        three = sum(min_planes(heads) > 2 for heads, _ in system.output_trees(states))
        assert three == 0 if not finish else 0 < three < 0.005 * len(lengths)


@pytest.mark.parametrize("name", ["planar", "two_planar"])
def test_tree_constraint_leaves_one_root_and_non_projective_trees(name):
    """Random walks build forests (several roots); under the tree constraint
    every tree has one root as the moves left it (``States.trees``, before
    any guard) and many are still not projective: the root may be covered."""
    system = make_system(name, ["a", "b"])
    lengths = [5, 12, 20, 30] * 50
    roots, nonproj = [], []
    for finish in (False, True):
        states, _ = random_run(system, lengths, np.random.default_rng(7), finish=finish)
        trees = list(states.trees(system.root_id))
        roots.append(np.mean([sum(1 for h in heads if h == 0) for heads, _ in trees]))
        nonproj.append(np.mean([not is_projective(heads) for heads, _ in trees if tree_error(heads) is None]))
    assert roots[0] > 3 and roots[1] == 1.0
    assert nonproj[1] > 0.2


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 20), min_size=1, max_size=6), st.integers(0, 2 ** 32 - 1))
def test_two_planar_never_switches_twice(lengths, seed):
    system = make_system("two_planar", ["a"])
    rng = np.random.default_rng(seed)
    states = system.init_states(lengths)
    while not system.is_final(states).all():
        valid = system.valid_actions(states)
        actions = np.where(valid.any(axis=1), (rng.random(valid.shape) + 2 * valid).argmax(axis=1), -1)
        before = states.last.copy()
        system.apply(states, actions)
        moved = actions >= 0
        assert not (moved & (before == SWITCH) & (system.table.move_of[np.maximum(actions, 0)] == SWITCH)).any()


@settings(max_examples=40, deadline=None)
@given(st.lists(labelled_trees(max_words=20), min_size=2, max_size=5), st.sampled_from(STATIC_VARIANTS))
def test_features_do_not_depend_on_the_batch(trees, variant):
    name, kw = variant
    system = system_for_trees(name, trees, **kw)
    prepared = [system.prepare_tree(h, l) for h, l in trees]
    together = oracle_run(system, prepared, with_features=True).steps
    alone = [oracle_run(system, [t], with_features=True).steps for t in prepared]
    for b in range(len(trees)):
        feats = [f[list(rows).index(b)] for rows, f, *_ in together if b in rows]
        labs = [l[list(rows).index(b)] for rows, _, l, *_ in together if b in rows]
        acts = [a[list(rows).index(b)] for rows, _, _, a, *_ in together if b in rows]
        assert np.array_equal(np.array(feats), np.array([f[0] for _, f, *_ in alone[b]]))
        assert np.array_equal(np.array(labs), np.array([l[0] for _, _, l, *_ in alone[b]]))
        assert acts == [a[0] for _, _, _, a, *_ in alone[b]]
        n = len(trees[b][0])
        assert all(((f >= -1) & (f < n)).all() for f in feats)
        assert all(((l >= -1) & (l < len(system.labels))).all() for l in labs)


def test_action_table_is_data():
    a = make_system("two_planar", ["obj", "nsubj"])
    b = make_system("two_planar", ["obj", "nsubj"])
    assert a.table.names() == b.table.names()
    assert a.table.names()[:3] == ["SHIFT", "REDUCE", "LEFT-ARC-obj"]
    assert len(a.table) == 3 + 2 * 3  # SHIFT REDUCE SWITCH + 2 arcs x (obj, nsubj, root)
    assert "SWITCH" in MOVE_NAMES


def _state_key(st):
    return (tuple(st.stack[0, 0, :st.sp[0, 0]].tolist()), int(st.bp[0]), tuple(st.heads[0].tolist()),
            tuple(st.labels[0].tolist()))


def _best_reachable(system, st, gold, memo):
    """The most gold arcs (label included) of any final tree reachable from
    the one-row state st, by exhaustive search."""
    key = _state_key(st)
    if key not in memo:
        if system.is_final(st)[0]:
            h, g = st.heads[0], gold.heads[0]
            words = np.arange(1, st.n[0] + 1)
            built = (h[words] == g[words]) & (st.labels[0, words] == gold.labels[0, words])
            roots = (h[words] < 0) & (g[words] == 0)
            memo[key] = int(built.sum() + roots.sum())
        else:
            # labels are free: an arc scores with its gold label, so each labelled move is
            # searched with the gold label of the word it attaches (LEFT: s0, RIGHT: b0)
            best = 0
            for a in _moves_with_gold_labels(system, st, gold):
                best = max(best, _best_reachable(system, _after(system, st, a), gold, memo))
            memo[key] = best
    return memo[key]


@settings(max_examples=80, deadline=None)
@given(labelled_trees(max_words=6), st.lists(st.integers(0, 10 ** 6), max_size=12))
def test_arc_eager_dynamic_oracle_costs_are_exact(tree, walk):
    """In any reachable configuration (a random walk from the start), the
    cost of each valid action is the number of gold arcs it puts out of
    reach: the best reachable score now minus the best after the action."""
    system = system_for_trees("arc_eager", [tree])
    prepared = system.prepare_tree(*tree)
    st = system.init_states([len(tree[0])])
    gold = make_oracle(system, st, [system.label_tree(prepared)])
    for r in walk:
        valid = np.flatnonzero(system.valid_actions(st)[0])
        if len(valid) == 0:
            break
        system.apply(st, np.array([valid[r % len(valid)]]))
    memo = {}
    best = _best_reachable(system, st, gold, memo)
    if system.is_final(st)[0]:
        return
    cost, gold_label = gold.costs(st)
    for a in np.flatnonzero(system.valid_actions(st)[0]):
        move, label = system.table.move_of[a], system.table.label_of[a]
        want = best - _best_reachable(system, _after(system, st, a), gold, memo)
        got = cost[0, move] + (label >= 0 and gold_label[0, move] >= 0 and label != gold_label[0, move])
        assert got == want, (system.table.names()[a], got, want)


def _moves_with_gold_labels(system, st, gold):
    from spacy_planar.parser.systems.state import LEFT, RIGHT
    valid = system.valid_actions(st)[0]
    out = []
    for a in np.flatnonzero(valid):
        move, label = system.table.move_of[a], system.table.label_of[a]
        if move in (LEFT, RIGHT):
            dep = st.s(0)[0] if move == LEFT else st.b(0)[0]
            if label != max(gold.labels[0, dep], 0):
                continue
        out.append(a)
    return out


def _after(system, st, a):
    nxt = st.select(np.array([0]))
    system.apply(nxt, np.array([a]))
    return nxt


def _as_config(name, st, n):
    """The one-row state st as a configuration of tests/reference.py."""
    heads = tuple([-1] + [int(h) for h in st.heads[0, 1:n + 1]])
    if name == "swap":
        return (tuple(int(w) for w in st.stack[0, 0, :st.sp[0, 0]]),
                tuple(int(w) for w in st.buf[0, :st.bp[0]][::-1]), heads)
    b0 = int(st.b(0)[0])
    stacks = tuple(tuple(int(w) for w in st.stack[0, k, :st.sp[0, k]]) for k in range(st.stack.shape[1]))
    return stacks, int(st.active[0]), bool(st.last[0] == SWITCH), b0 if b0 > 0 else n + 1, heads


def _random_tree(rng, n):
    order = rng.permutation(np.arange(1, n + 1))
    heads = [0] * n
    for k, w in enumerate(order[1:], 1):
        heads[w - 1] = int(order[rng.integers(0, k)])
    return heads, [str(rng.choice(["nsubj", "obj", "obl"])) if h else "root" for h in heads]


@pytest.mark.parametrize("name,max_words,exact_share", [("planar", 7, 0.97), ("two_planar", 6, 0.97), ("swap", 6,
                                                                                                       0.97)])
def test_approximate_dynamic_oracles_against_search(name, max_words, exact_share):
    """The move costs of planar, 2-planar and swap (``costs``), in random
    reachable configurations of random small trees, against the true cost
    (best reachable score now minus after the move, by exhaustive search,
    of gold arcs only after the move for planar and 2-planar; trees of up to 7 words for planar, 6 for
    2-planar and swap):
    every state's cheapest moves are optimal, and the costs of the arc moves
    (REDUCE, LEFT and RIGHT, and SHIFT but in swap, where SHIFT and SWAP
    only carry the static oracle's preferences; the half-link preferences
    left out) are exact in at least ``exact_share`` of the states
    (planar: SHIFT and REDUCE too)."""
    import reference as ref

    from spacy_planar.parser.systems.state import LEFT, REDUCE, RIGHT, SHIFT
    rng = np.random.default_rng(7)
    successors, final = ((ref.swap_successors, ref.swap_final) if name == "swap"
                         else (ref.planar_successors, ref.planar_final))
    checked = {REDUCE, LEFT, RIGHT} | ({SHIFT} if name != "swap" else set())
    states = exact = 0
    while states < 150:
        tree = _random_tree(rng, int(rng.integers(2, max_words + 1)))
        system = system_for_trees(name, [tree])
        st = system.init_states([len(tree[0])])
        gold = make_oracle(system, st, [system.label_tree(system.prepare_tree(*tree))])
        for _ in range(int(rng.integers(0, 4 * len(tree[0])))):
            valid = np.flatnonzero(system.valid_actions(st)[0])
            if len(valid) == 0:
                break
            system.apply(st, valid[rng.integers(0, len(valid))][None])
        if system.is_final(st)[0]:
            continue
        n = len(tree[0])
        gold_heads = [0] + [int(h) for h in gold.heads[0, 1:n + 1]]
        # planar systems: after the move judged, only gold arcs need searching
        search = successors if name == "swap" else ref.gold_arcs_only(successors, gold_heads)
        best = ref.best_reachable(search, final, gold_heads, n)
        cfg = _as_config(name, st, n)
        succ = successors(cfg, n)
        cost, _ = gold.costs(st)
        assert set(np.flatnonzero(np.isfinite(cost[0]))) == set(succ)
        true = {m: best(cfg) - best(c) for m, c in succ.items()}
        cheapest = {m for m in succ if cost[0, m] == min(cost[0, k] for k in succ)}
        assert all(true[m] == 0 for m in cheapest), (tree, cfg, cost[0], true)
        states += 1
        exact += all(np.floor(cost[0, m]) == true[m] for m in succ if m in checked)
    assert exact >= exact_share * states, (exact, states)


@pytest.mark.parametrize("name", ["planar", "two_planar", "swap"])
def test_cheapest_moves_derive_the_gold_tree(name):
    """From the start, taking any of the cheapest moves at random gives back
    every gold tree the system covers (every third tree of the test treebank)."""
    trees = [t for t in gold_trees(None, every=3)]
    system = system_for_trees(name, trees)
    prepared = [system.prepare_tree(*t) for t in trees]
    st = system.init_states([len(h) for h, _ in trees])
    gold = make_oracle(system, st, [system.label_tree(t) for t in prepared])
    rng = np.random.default_rng(0)
    while not system.is_final(st).all():
        _, cheapest = gold.cheapest(st)
        pick = np.where(cheapest, rng.random(cheapest.shape), -1).argmax(axis=1)
        system.apply(st, np.where(cheapest.any(axis=1), pick, -1))
    out = system.output_trees(st)
    covered = [i for i, t in enumerate(trees) if system.covers(*t)]
    assert len(covered) >= 30  # planar: the planar trees, a little over half
    assert sum(out[i] == (list(trees[i][0]), list(trees[i][1])) for i in covered) == len(covered)


@pytest.mark.parametrize("heads", [[0, 1, 1, 1], [0, 1, 1, 2, 1]])
def test_swap_sinks_a_complete_word_to_its_head_down_the_stack(heads):
    """Swap's costs carry a word that has all its dependents down the stack
    to its gold head by SWAPs, rather than SHIFT more words onto it (the
    sentence-final mark under the root word, ``Swap._sink``). "V x y ." with
    x, y and the mark under V: after SHIFT V x y (x not attached first: an
    error), y has its dependents and V is below x. The same in "V x y . z"
    with z under x, non-projective, where the state is on the static
    oracle's path. From there the cheapest moves still give the gold tree."""
    from spacy_planar.parser.systems.state import SHIFT, SWAP
    labels = ["root"] + ["dep"] * (len(heads) - 1)
    system = system_for_trees("swap", [(heads, labels)])
    st = system.init_states([len(heads)])
    gold = make_oracle(system, st, [system.label_tree((heads, labels))])
    shift = system.table.action(np.array([SHIFT]), np.array([-1]))
    for _ in range(3):
        system.apply(st, shift)
    cost, _ = gold.costs(st)
    assert (cost[0, SWAP], cost[0, SHIFT]) == (0, 0.5)
    while not system.is_final(st).all():
        _, cheapest = gold.cheapest(st)
        system.apply(st, cheapest.argmax(axis=1))
    assert system.output_trees(st) == [(heads, labels)]


def test_two_planar_exploration_targets_are_the_static_oracle_where_it_is_cheapest():
    """Training with exploration follows and learns ``exploration_targets``:
    on the static oracle's own path they are its action alone, though a
    third of these states have several cheapest actions; off that path (one
    random valid move in ten) they are cheapest actions, one of them where
    the static oracle's action is cheapest, all of them elsewhere."""
    trees = [t for t in gold_trees(None, every=1)]
    system = system_for_trees("two_planar", trees)
    st = system.init_states([len(h) for h, _ in trees])
    gold = make_oracle(system, st, [system.label_tree(system.prepare_tree(*t)) for t in trees])
    rng = np.random.default_rng(0)
    several = states = off_path = narrowed = 0
    on_path = np.ones(st.B, dtype=bool)
    while not system.is_final(st).all():
        live = ~system.is_final(st)
        valid, cheapest = gold.cheapest(st)
        valid_t, targets = gold.targets(st)
        assert (valid_t == valid).all()
        assert not (targets & ~cheapest).any()
        assert (targets.any(axis=1) == cheapest.any(axis=1)).all()
        static = system.table.action(*gold.static(st))
        static_cheapest = cheapest[st.rows, static]
        assert (targets.sum(axis=1)[static_cheapest] == 1).all()
        assert targets[st.rows, static][static_cheapest].all()
        assert (targets == cheapest)[~static_cheapest].all()
        path = live & on_path
        states += path.sum()
        several += (path & (cheapest.sum(axis=1) > 1)).sum()
        # on the path the static oracle's action is (almost) always cheapest
        assert (path & ~static_cheapest).sum() <= max(2, path.sum() // 1000)
        off_path += (live & ~on_path).sum()
        narrowed += (live & ~on_path & static_cheapest & (cheapest.sum(axis=1) > 1)).sum()
        random = (rng.random(valid.shape) + 2 * valid).argmax(axis=1)
        noisy = live & (rng.random(st.B) < 0.1)
        on_path &= ~noisy
        system.apply(st, np.where(live, np.where(noisy, random, static), -1))
    assert several > 0.2 * states  # the ambiguity the narrowing removes
    assert off_path > 0 and narrowed > 0


def exploration_setup(name, kw, every, seed, covered=False):
    """The test treebank's trees (``covered``: those the system derives), their system, a fixed scoring
    function of the features
    (standing in for a model), the trees' token offsets, and a function
    giving fresh initial states with their gold (prepared) for
    ``exploration_run``."""
    trees = [t for t in gold_trees(None, every=every)]
    system = system_for_trees(name, trees, **kw)
    if covered:  # only the trees the system derives exactly
        trees = [t for t in trees if system.covers(*t)]
    weights = np.random.default_rng(seed).normal(size=(len(system.features) + len(system.label_features),
                                                       len(system.table)))

    def score(f, l):
        return np.sin(np.concatenate([f, l], axis=1) * 0.37) @ weights

    def fresh():
        st = system.init_states([len(h) for h, _ in trees])
        gold = make_oracle(system, st, [system.label_tree(system.prepare_tree(*t)) for t in trees])
        return st, gold

    return trees, system, score, np.cumsum([0] + [len(h) for h, _ in trees[:-1]]), fresh


@pytest.mark.parametrize("name,kw", VARIANTS)
def test_exploration_run_is_the_same_when_finished_states_are_dropped(name, kw):
    """``exploration_run`` drops finished states from the batch as it goes;
    the states it visits, their features and targets must be those of the
    run that keeps every row to the end (the random draws are per original
    row, the scores a function of each state's features alone)."""
    from spacy_planar.parser.transition.driver import exploration_run
    trees, system, score, offsets, fresh = exploration_setup(name, kw, every=2, seed=1)
    runs = []
    for compact_below in (0.0, 0.75, 1.0):
        st, gold = fresh()
        np.random.seed(3)
        runs.append(exploration_run(system, st, gold, score, 0.9, offsets, compact_below=compact_below))
    kept, dropped, eager = runs
    assert len(kept[0]) > 5 * len(trees)
    for a, b, c in zip(kept, dropped, eager):
        assert np.array_equal(a, b) and np.array_equal(a, c)


@pytest.mark.parametrize("name,kw", VARIANTS)
def test_exploration_run_per_row_probabilities(name, kw):
    """``exploration`` may be one probability per row (the component's
    ``exploration_nonprojective``): rows at 0 never follow the model, so
    they end in their gold tree as the system prepares it (arc-eager:
    projectivized, planar: the links that fit) wherever the static oracle
    does, while rows at 1 follow the model and mostly do not; an array of
    equal values is the run of the scalar."""
    from spacy_planar.parser.transition.driver import exploration_run
    trees, system, score, offsets, fresh = exploration_setup(name, kw, every=2, seed=2)
    prepared = [system.prepare_tree(*t) for t in trees]
    labelled = [system.label_tree(t) for t in prepared]
    nonprojective = np.array([not is_projective(h) for h, _ in trees])
    assert 10 < nonprojective.sum() < len(trees) - 10

    def in_gold(st):  # per row: whether its final tree is the prepared gold tree
        return [t == (list(g[0]), list(g[1])) for t, g in zip(st.trees(system.root_id), labelled)]

    reproduced = [t == (list(g[0]), list(g[1])) for t, g in zip(oracle_run(system, prepared).trees, prepared)]

    def run(exploration):
        st, gold = fresh()
        np.random.seed(5)
        # compact_below=0: the rows stay in ``st`` to the end, to be read after
        return st, exploration_run(system, st, gold, score, exploration, offsets, compact_below=0.0)

    st, _ = run(np.where(nonprojective, 0.0, 1.0))
    out = in_gold(st)
    static = [k for k in range(len(trees)) if nonprojective[k] and reproduced[k]]
    assert len(static) > 10
    assert all(out[k] for k in static)
    followed = [k for k in range(len(trees)) if not nonprojective[k] and len(trees[k][0]) > 3]
    assert sum(not out[k] for k in followed) > len(followed) // 2
    _, scalar = run(0.9)
    _, array = run(np.full(len(trees), 0.9))
    for a, b in zip(scalar, array):
        assert np.array_equal(a, b)


def run_without(name, kw, every, move, keep_order, record):
    """The test treebank's trees parsed by ``exploration_run`` (exploration 1, ``keep_order``)
    following a stand-in model that scores the static oracle's action highest
    in every state but ``move`` lowest, so that following it never makes that
    move. Before each step ``record(states, gold, kept, live, moves)`` sees
    the rows ``kept_rows`` keeps and the moves made. Returns the trees, the
    system and whether each tree ends in its gold tree as the system prepares it."""
    from spacy_planar.parser.transition.driver import exploration_run
    trees, system, _, offsets, fresh = exploration_setup(name, kw, every=every, seed=4)
    move_of = system.table.move_of
    st, gold = fresh()

    def model(f, l):  # compact_below=0 below: ``st`` stays the batch's states
        actions = system.table.action(*gold.static(st))
        scores = np.zeros((st.B, len(system.table)))
        scores[st.rows, actions] = 1.0
        scores[:, move_of == move] = -1.0
        return scores

    apply = system.apply

    def recording_apply(states, actions):
        _, targets = gold.targets(states)
        live = (actions >= 0) & ~system.is_final(states)
        record(states, gold, gold.kept(states, targets) & live, live, move_of[np.maximum(actions, 0)])
        apply(states, actions)

    system.apply = recording_apply
    np.random.seed(6)
    exploration_run(system, st, gold, model, 1.0, offsets, compact_below=0.0, keep_order=keep_order)
    labelled = [system.label_tree(system.prepare_tree(*t)) for t in trees]
    return trees, system, [t == (list(g[0]), list(g[1])) for t, g in zip(st.trees(system.root_id), labelled)]


@pytest.mark.parametrize("keep_order", [True, False])
def test_exploration_keep_order_takes_the_oracles_swaps(keep_order):
    """``keep_order`` (the component's ``exploration_keep_order``): a swap
    parse that always follows a model (exploration 1) which makes the static
    oracle's moves but never SWAP takes SWAP anyway wherever the oracle's
    order asks for it, and so ends in every gold tree; without it the
    model's choice is followed, no word is swapped, and the trees that need
    a SWAP come out wrong."""
    from spacy_planar.parser.systems.state import SWAP
    counts = {"asked": 0, "swapped": 0, "other_swaps": 0}

    def record(states, gold, asked, live, moves):
        swapped = (moves == SWAP) & live
        counts["asked"] += int(asked.sum())
        counts["swapped"] += int((asked & swapped).sum())
        counts["other_swaps"] += int((swapped & ~asked).sum())

    trees, _, right = run_without("swap", {"oracle": "lazy"}, 1, SWAP, keep_order, record)
    assert counts["asked"] > 20 and counts["other_swaps"] == 0
    assert counts["swapped"] == (counts["asked"] if keep_order else 0)
    projective = [is_projective(h) for h, _ in trees]
    assert all(r for r, p in zip(right, projective) if p)
    wrong_np = sum(not r for r, p in zip(right, projective) if not p)
    assert wrong_np == 0 if keep_order else wrong_np > 20


@pytest.mark.parametrize("keep_order", [True, False])
def test_exploration_keep_order_takes_two_planars_planes(keep_order):
    """2-planar's ``kept_rows`` (``exploration_keep_order``): a parse
    that always follows a model (exploration 1) making the static oracle's
    moves but never SWITCH takes SWITCH anyway wherever the oracle switches,
    and so builds every 2-planar gold tree; without it no SWITCH is made and
    the trees whose crossing links need the second plane come out wrong.
    The kept rows are the oracle's SWITCHes and the arcs of crossing links,
    never a link that crosses nothing."""
    from spacy_planar.parser.systems.state import LEFT, RIGHT, SWITCH
    from spacy_planar.trees.algorithms import crossings
    counts = {"kept": 0, "switches": 0, "uncrossed_arcs": 0}

    def record(states, gold, kept, live, moves):
        dep = np.where(moves == LEFT, np.maximum(states.s(0), 0), np.maximum(states.b(0), 0))
        arc = (moves == LEFT) | (moves == RIGHT)
        counts["kept"] += int(kept.sum())
        counts["switches"] += int((live & (moves == SWITCH)).sum())
        counts["uncrossed_arcs"] += int((kept & arc & ~gold.crossed[states.rows, dep]).sum())

    trees, system, right = run_without("two_planar", {}, 1, SWITCH, keep_order, record)
    assert counts["kept"] > 50 and counts["uncrossed_arcs"] == 0
    assert (counts["switches"] > 20) if keep_order else counts["switches"] == 0
    crossed = [bool(crossings(h)[1].any()) for h, _ in trees]
    covered = [system.covers(*t) for t in trees]
    assert sum(crossed) > 50
    assert all(r for r, c in zip(right, crossed) if not c)
    wrong = sum(not r for r, c, k in zip(right, crossed, covered) if c and k)
    assert wrong == 0 if keep_order else wrong > 20


def test_two_planar_exploring_at_zero_is_static_training():
    """The component trains units whose probability of exploring is 0 on the
    static oracle's cached transitions (as ``training_arrays`` gives them) instead
    of parsing them in the exploring run. For 2-planar that is the same
    training: at probability 0 ``exploration_run`` visits the static
    oracle's states (same feature and label tokens) and trains each towards
    the oracle's action alone, with the same valid actions (compared as sets
    of rows, which the two runs order differently). On the trees 2-planar
    covers: on the others the static oracle derives the tree its planes
    keep, and exploring may reach it by another path of the same cost."""
    from spacy_planar.parser.transition.driver import exploration_run
    trees, system, score, offsets, fresh = exploration_setup("two_planar", {}, every=2, seed=3, covered=True)
    st, gold = fresh()
    explored = exploration_run(system, st, gold, score, 0.0, offsets)
    ids, labs, actions, valid = [], [], [], []
    for rows, f, l, a, moves_ok, _ in oracle_run(system, [system.prepare_tree(*t) for t in trees],
                                              with_features=True).steps:
        ids.append(np.where(f >= 0, f + offsets[rows][:, None], -1))
        labs.append(l)
        actions.append(a)
        valid.append(moves_ok)
    static = [np.concatenate(ids), np.concatenate(labs),
              *system.training_arrays(np.concatenate(actions), np.concatenate(valid), np.zeros((0, 0)))[:2]]

    def rows_sorted(parts):
        table = np.concatenate([np.asarray(p).astype(np.int64) for p in parts], axis=1)
        return table[np.lexsort(table.T[::-1])]

    assert len(explored[0]) == len(static[0]) > 1000
    assert np.array_equal(rows_sorted(explored), rows_sorted(static))


def test_first_sets_of_a_tree():
    from spacy_planar.trees.algorithms import first_sets, leftmost_descendants
    # "I saw a girl": saw's subtree starts at I, girl's at a
    assert leftmost_descendants(FIGURE_2[0]).tolist() == [0, 1, 1, 3, 3]
    assert first_sets([(FIGURE_2[0], ["PRON", "VERB", "DET", "NOUN"])]) == {
        "PRON": {"PRON"}, "VERB": {"PRON"}, "DET": {"DET"}, "NOUN": {"DET"}}


def test_top_down_first_lookahead_keeps_the_gold_prediction():
    """With FIRST built from the training trees (section 5.4), the oracle's
    PRED(k) on those trees is always among the words the lookahead leaves
    (k's subtree starts at the queue's front), and the lookahead leaves
    fewer words to choose from; on dev, how often it would drop the gold one."""
    from spacy_planar.parser.systems.state import PRED
    from spacy_planar.trees.algorithms import first_sets

    def walk(sents, first):
        trees = [(s.heads, s.deprels) for s in sents]
        system = system_for_trees("top_down", trees, first=first)
        prepared = [system.prepare_tree(h, l) for h, l in trees]
        st = system.init_states([len(h) for h, _ in prepared], tags=[s.upos for s in sents])
        oracle = make_oracle(system, st, [system.label_tree(t) for t in prepared])
        kept = missed = narrowed = full = 0
        while not system.is_final(st).all():
            moves, labels = oracle.static(st)
            live = ~system.is_final(st) & (moves == PRED)
            rng = system.pred_range(st)
            kept += rng[live, labels[live]].sum()
            missed += (~rng[live, labels[live]]).sum()
            narrowed += rng[live].sum()
            first_off, system.first = system.first, None
            full += system.pred_range(st)[live].sum()
            system.first = first_off
            system.apply(st, np.where(system.is_final(st), -1, system.action_of(moves, labels)))
        return kept, missed, narrowed, full

    train = [s for s in read_conllu(fixture_path()) if s.heads is not None]
    first = first_sets((s.heads, s.upos) for s in train)
    kept, missed, narrowed, full = walk(train[::4], first)
    assert missed == 0 and kept > 0 and narrowed < 0.9 * full
    kept, missed, _, _ = walk([s for s in read_conllu(fixture_path("dev")) if s.heads is not None], first)
    assert missed < 0.01 * (kept + missed)


@pytest.mark.parametrize("name,kw", STATIC_VARIANTS)
def test_oracles_answer_without_changing(name, kw):
    """An oracle is computed when built: running its static oracle over the
    batch (and asking its costs on the way) leaves every array it holds as it
    was, and asking twice in a state gives the same answer."""
    trees = gold_trees(None, every=1)
    system = system_for_trees(name, trees, **kw)
    prepared = [system.label_tree(system.prepare_tree(h, l)) for h, l in trees]
    st = system.init_states([len(h) for h, _ in prepared])
    oracle = make_oracle(system, st, prepared)
    before = {k: v.copy() for k, v in vars(oracle).items() if isinstance(v, np.ndarray)}
    while not system.is_final(st).all():
        first = oracle.static(st)
        again = oracle.static(st)
        assert all((a == b).all() for a, b in zip(first, again))
        if system.dynamic_oracle:
            oracle.costs(st)
        live = ~system.is_final(st)
        system.apply(st, np.where(live, system.action_of(*first), -1))
    after = {k: v for k, v in vars(oracle).items() if isinstance(v, np.ndarray)}
    assert before.keys() == after.keys() and all((before[k] == after[k]).all() for k in before)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_system_keeps_the_contract_and_a_broken_one_is_named(name):
    """``systems/contract.py``: each system's answers have the stated shapes
    in the states of an oracle run (the driver checks its first step under
    SPACY_PLANAR_DEBUG, as the tests run); a system whose valid_actions
    has one column too few is E126, naming the hook."""
    from spacy_planar.errors import UnexpectedError
    from spacy_planar.parser.systems.contract import check

    trees = [([2, 0, 2, 3], ["a", "root", "b", "a"]), ([0, 1], ["root", "b"])]
    system = system_for_trees(name, trees)
    st = system.init_states([len(h) for h, _ in trees])
    oracle = make_oracle(system, st, [system.label_tree(system.prepare_tree(*t)) for t in trees])
    for _ in range(3):
        check(system, st)
        moves, labels = oracle.static(st)
        system.apply(st, np.where(system.is_final(st), -1, system.action_of(moves, labels)))

    whole = system.valid_actions
    system.valid_actions = lambda st: whole(st)[:, :-1]  # one hook broken, on this instance
    with pytest.raises(UnexpectedError, match=rf"E126\] {system.name}.valid_actions gave bool\[2, "):
        check(system, system.init_states([len(h) for h, _ in trees]))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_the_oracles_select_is_numpys(n, k, seed, scalar_choices):
    """oracles.base.select (np.where from the last condition back) gives
    np.select's rows and dtype, with scalar or int32 array choices."""
    from spacy_planar.parser.oracles.base import select

    rng = np.random.default_rng(seed)
    conditions = [rng.random(n) < 0.4 for _ in range(k)]
    choices = ([int(c) for c in rng.integers(0, 9, k)] if scalar_choices
               else [rng.integers(-5, 9, n).astype(np.int32) for _ in range(k)])
    got, want = select(conditions, choices, -1), np.select(conditions, choices, -1)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()
