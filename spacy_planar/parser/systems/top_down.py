"""Top-down head-driven parsing (Hayashi, Watanabe, Asahara & Matsumoto 2012,
section 3, Figure 1), on pseudo-projective trees as arc-eager's.

State ⟨i, h, j, S⟩ : π: i the front of the input queue, h the root of the
stack's top tree s0, j the right limit of what h may still predict (j - 1
inclusive), S the stack of trees, π the predictor states. In the greedy
and the beam search of this package the predictor of the top tree is the
state below it on the stack, so π is the stack itself: each stack element
keeps its (h, j), and COMP pops back to the element below, as Figure 2
shows. Stored on the batched core as two stacks in lockstep: stack 0 the
roots h (with the artificial root 0 at the bottom), stack 1 their right
limits j - 1 (the root's: n); i is the buffer's front (n + 1 when empty).

    PRED(k), predx   ⟨i, h, j, S⟩ ⇒ ⟨i, k, h, S|k⟩       i ≤ k < h
    PRED(k), predy   ⟨i, h, j, S⟩ ⇒ ⟨i, k, j, S|k⟩       h < i ≤ k < j
    SCAN             ⟨i, h, j, S⟩ ⇒ ⟨i + 1, h, j, S⟩     i = h
    COMP_l           ⟨i, h, j, S|s1|s0⟩ ⇒ ⟨i, h', j', S|s1⟩ with the arc (h', l, h),
                     h' and j' those of s1                h < i

Goal: ⟨n + 1, 0, n + 1, s0⟩ after exactly 3n steps (each word is predicted,
scanned and completed once, section 6). Footnote 1: the artificial root
has exactly one child, so COMP onto the root is allowed only at the last
step (the queue empty). PRED and SCAN cannot conflict (i < h, i = h, h < i);
PRED-y and COMP share h < i.

The arc is labelled at COMP, where it is added: the dependent's subtree is
complete then, so the label is chosen with all of it in the features
(at PRED the dependent has no dependents yet). COMP is named COMP-LEFT
or COMP-RIGHT by the side of the dependent, and uses the moves LEFT and
RIGHT of the shared core (labelled, as arc-eager's arcs); SCAN is SHIFT.
PRED(k) is an action per word k: action id ``len(table) + k``, after the
table's, so the actions of a state are the table's and one per position.

Every reachable tree is projective with one root (section 4, Theorem 4.1).
Its static oracle is in ``oracles/top_down.py``.

Weighted prediction (section 5.2): the model scores a state's table actions
and one PRED move (``n_scored``), and PRED(k) adds an arc score of the pair
(h, k) and of (previous sibling, k) (eq. 3-4; ``transition/parser_model.py``).
``model_inputs`` gives the arc scorer its tokens: h, the sibling (the child
of h predicted last on the side k is on: children are predicted left to
right on both sides, and each is completed before the next is predicted,
so it is h's rightmost dependent on that side), and the span of candidate
words. With a beam, ``pred_size`` caps the PRED(k) kept per state (the
prediction size of section 5.2 and Algorithm 1, line 10).
"""
from __future__ import annotations

from typing import Dict, Iterable, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.defaults import ROOT_LABEL
from spacy_planar.parser.systems.base import PseudoProjective, Tree
from spacy_planar.parser.systems.state import INT, LEFT, MOVE_NAMES, PRED, RIGHT, SHIFT, States

SCAN = SHIFT


class TopDown(PseudoProjective):
    name = "top_down"
    moves = (SHIFT, LEFT, RIGHT)
    word_move = PRED  # PRED(k), one action per word k after the table's
    n_stacks = 2
    root_on_stack = True
    dynamic_oracle = False
    move_names = tuple({SHIFT: "SCAN", LEFT: "COMP-LEFT", RIGHT: "COMP-RIGHT", PRED: "PRED"}.get(m, name)
                       for m, name in enumerate(MOVE_NAMES))

    reads_tags = True

    def __init__(self, labels: Sequence[str], root_label: str = ROOT_LABEL, *, encoding: str,
                 pred_size: int, first: Optional[Dict[str, Iterable[str]]] = None, **built):
        """``first``: the FIRST lookahead (section 5.4, eq. 10;
        ``trees.first_sets`` of the training trees' tags): PRED(k) only where
        the tag of the queue's front i is in FIRST(tag of k), unless no k
        qualifies; None: off. It reads the tags given to ``init_states``; a
        tag FIRST has not seen restricts nothing."""
        super().__init__(labels, root_label, encoding=encoding, **built)
        self.pred_size = int(pred_size)
        self.first = first or None
        if self.first is None:
            return
        vocab = sorted(set(first) | {t for ts in first.values() for t in ts})
        self.tag_ids = {t: i for i, t in enumerate(vocab)}
        allowed = np.ones((len(vocab) + 1, len(vocab) + 1), dtype=bool)  # the last: unseen tags
        allowed[:len(vocab), :len(vocab)] = False
        for t, ts in first.items():
            for u in ts:
                allowed[self.tag_ids[t], self.tag_ids[u]] = True
        self.allowed = allowed  # [tag of k, tag of i]

    @staticmethod
    def max_steps(n: int) -> int:
        return 3 * n

    def init_states(self, lengths: Sequence[int], finish: bool = False,
                    tags: Optional[Sequence[Sequence[str]]] = None) -> States:
        """The axiom ⟨1, 0, n + 1, n0⟩: the root on stack 0, its limit n on
        stack 1 (always one tree: ``finish`` changes nothing). ``tags``: the
        words' tags (UPOS), for the FIRST lookahead."""
        st = super().init_states(lengths, finish=False)
        st.stack[:, 1, 0] = st.n
        st.sp[:, 1] = 1
        if tags is not None and self.first is not None:
            unseen = len(self.tag_ids)
            st.tags = np.full((st.B, st.T), unseen, dtype=INT)  # the declared field (None: no tags)
            for b, ts in enumerate(tags):
                st.tags[b, 1:len(ts) + 1] = [self.tag_ids.get(t, unseen) for t in ts]
        return st

    def wants_tags(self) -> bool:
        return self.first is not None

    # --- the state's i, h, j - 1 -------------------------------------------------
    @staticmethod
    def ihr(st: States):
        """(i, h, j - 1) of every row: the queue's front (n + 1 when empty),
        the top tree's root, its right limit (inclusive); h = -1 when the
        stack is empty (never: the root stays). Memoised until the states
        change (validity, the oracle and the model's inputs all read it)."""
        def compute():
            b0 = st.b(0)
            return np.where(b0 >= 0, b0, st.n + 1), st.s(0), st.top(st.rows, np.ones(st.B, dtype=INT))
        return st.memoised(("ihr", 0), compute)

    def terminal(self, st: States) -> np.ndarray:
        return (st.bp == 0) & (st.sp[:, 0] == 1)

    def valid_moves(self, st: States) -> np.ndarray:
        """[B, 7]: SCAN (as SHIFT), COMP (LEFT or RIGHT by the dependent's
        side), PRED (some k is valid)."""
        i, h, r = self.ihr(st)
        s1 = st.s(1)
        valid = np.zeros((st.B, len(MOVE_NAMES)), dtype=bool)
        valid[:, SCAN] = i == h
        comp = (s1 >= 0) & (h < i) & ((s1 != 0) | (st.bp == 0))  # footnote 1: onto the root last
        valid[:, LEFT] = comp & (h < s1)
        valid[:, RIGHT] = comp & (h > s1)
        valid[:, PRED] = (i < h) | ((h < i) & (i <= r))
        return valid & ~self.is_final(st)[:, None]

    def pred_range(self, st: States) -> np.ndarray:
        """[B, T]: the words each state may predict (``pred_bounds``),
        narrowed by FIRST where it is on."""
        lo, hi = self.pred_bounds(st)
        k = np.arange(st.T)[None, :]
        ok = (k >= lo[:, None]) & (k <= hi[:, None])
        tags = st.tags
        if tags is not None and self.first is not None:
            front = np.take_along_axis(tags, np.minimum(lo, st.T - 1)[:, None], axis=1)  # [B, 1]; i = n + 1: unused
            looked = ok & self.allowed[tags, front]
            ok = np.where(looked.any(axis=1, keepdims=True), looked, ok)
        return ok

    def valid_actions(self, st: States) -> np.ndarray:
        """[B, len(table) + T]: the table's actions, then PRED(k) for each word
        k. COMP onto the artificial root takes the root label, and only it."""
        table = self.table_valid(self.valid_moves(st), st.s(1) == 0)
        return np.concatenate([table, self.pred_range(st)], axis=1)

    def table_valid(self, valid_moves: np.ndarray, onto_root: np.ndarray) -> np.ndarray:
        """[B, len(table)]: the table's actions valid by their moves, COMP
        taking the root label exactly where it attaches to the root."""
        valid = valid_moves[:, self.table.move_of]
        labelled = (self.table.label_of >= 0)[None, :]
        return valid & (~labelled | (onto_root[:, None] == (self.table.label_of == self.root_id)[None, :]))

    def best_actions(self, scores: np.ndarray, st: States, live: np.ndarray) -> np.ndarray:
        best = np.where(self.valid_actions(st), scores, -np.inf).argmax(axis=1)
        return np.where(live, best, -1)

    # --- what the model scores (weighted prediction, section 5.2) ---------------------
    def arc_words(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """(h, sibling) of every row: the top tree's root and the child of h
        predicted last on the side of i (-1: none yet), eq. 4's sib."""
        i, h, _ = self.ihr(st)
        k = np.arange(st.T)[None, :]
        left = (st.heads == h[:, None]) & (k < h[:, None])  # the latest left child is the nearest to h
        nearest_left = np.where(left.any(axis=1), st.T - 1 - left[:, ::-1].argmax(axis=1), -1)
        return h, np.where(i < h, nearest_left, st.at(st.rmost, h))  # rmost: the rightmost right child

    def pred_bounds(self, st: States) -> Tuple[np.ndarray, np.ndarray]:
        """(lo, hi): the words each state may predict, lo ≤ k ≤ hi (predx:
        i ≤ k < h; predy: h < i ≤ k < j; empty, hi < lo, where none)."""
        i, h, r = self.ihr(st)
        hi = np.where(i < h, h - 1, np.where(h < i, r, 0))
        return i, np.where(self.is_final(st), 0, hi)

    def model_inputs(self, st: States, offsets: Optional[np.ndarray] = None) -> Tuple[np.ndarray, ...]:
        """The features, and the arc scorer's token rows [B, 7]: h (-1: the
        artificial root), its sibling (-1: none), words 1 and T - 1 (PRED(k)
        for k < T, word k being token row ``[:, 2] + k - 1``), the queue's
        front i, the first and the last word it may predict."""
        ids, labs = self.get_features(st, offsets)
        offsets = np.zeros(st.B, dtype=INT) if offsets is None else offsets
        return ids, labs, self._shift(self._arc_rows(st, st.T - 1), offsets)

    @staticmethod
    def _shift(rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """``_arc_rows`` moved to the sentences' places among the batch's tokens."""
        rows = rows.copy()
        rows[:, :2] = np.where(rows[:, :2] >= 0, rows[:, :2] + offsets[:, None], -1)
        rows[:, 2:] += offsets[:, None]
        return rows

    def _arc_rows(self, st: States, last: np.ndarray) -> np.ndarray:
        """``model_inputs``' rows for a sentence alone (word w: row w - 1),
        the last candidate word ``last``."""
        h, sib = self.arc_words(st)
        i = self.ihr(st)[0]
        lo, hi = self.pred_bounds(st)
        tok = lambda w: np.where(w > 0, w - 1, -1)  # noqa: E731
        return np.stack([tok(h), tok(sib), np.zeros(st.B, dtype=INT), np.broadcast_to(last - 1, (st.B,)),
                         i - 1, lo - 1, hi - 1], axis=1)

    def step_record(self, st: States) -> np.ndarray:
        """Per state: ``model_inputs``' rows for the sentence alone (its own
        last word n), and whether COMP would attach to the root."""
        return np.concatenate([self._arc_rows(st, st.n), (st.s(1) == 0).astype(INT)[:, None]], axis=1)

    def training_arrays(self, actions: np.ndarray, valid_moves: np.ndarray, records: np.ndarray,
                        offsets: Optional[np.ndarray] = None):
        """Targets and valid actions over the table and PRED(k) for k < T
        (T: one more than the longest sentence), and the arc scorer's rows."""
        offsets = np.zeros(len(actions), dtype=INT) if offsets is None else offsets
        arcs = self._shift(records[:, :7], offsets)
        T = int((arcs[:, 3] - arcs[:, 2]).max()) + 2 if len(arcs) else 1
        arcs[:, 3] = arcs[:, 2] + T - 2
        valid = self.table_valid(valid_moves, records[:, 7].astype(bool))
        k = np.arange(T)[None, :]
        lo, hi = records[:, 5:6] + 1, records[:, 6:7] + 1
        valid = np.concatenate([valid, (k >= lo) & (k <= hi)], axis=1)
        targets = np.zeros(valid.shape, dtype=bool)
        targets[np.arange(len(actions)), actions] = True
        return targets, valid, (arcs,)

    def limit_candidates(self, cand: np.ndarray) -> np.ndarray:
        """Beam search: keep each state's ``pred_size`` best PRED(k) (0: all)."""
        nT = self.actions.n_table
        size = self.pred_size
        if size <= 0 or cand.shape[1] - nT <= size:
            return cand
        pred = cand[:, nT:]
        cut = -np.partition(-pred, size - 1, axis=1)[:, size - 1:size]
        cand = cand.copy()
        cand[:, nT:] = np.where(pred >= cut, pred, -np.inf)
        return cand

    # --- the moves ---------------------------------------------------------------------
    def apply(self, st: States, actions: np.ndarray) -> None:
        """PRED(k) here; the table's actions (SCAN, COMP) as every system applies them."""
        rows = np.flatnonzero(self.actions.takes_word(actions) & ~self.is_final(st))
        if len(rows):
            self.predict(st, rows, actions[rows] - self.actions.n_table)
            st.last[rows] = PRED
            st.steps[rows] += 1
        rest = actions.copy()
        rest[rows] = -1
        super().apply(st, rest)

    def transitions(self):
        return {SCAN: self.scan, LEFT: self.comp, RIGHT: self.comp}

    def predict(self, st: States, rows: np.ndarray, k: np.ndarray) -> None:
        """PRED(k): predx (k < h) pushes (k, h - 1); predy pushes (k, j - 1)."""
        _, h, r = self.ihr(st)
        limit = np.where(k < h[rows], h[rows] - 1, r[rows])
        st.push(rows, 0, k)
        st.push(rows, 1, limit)

    @staticmethod
    def scan(st: States, rows, labels, stack) -> None:
        st.pop_buffer(rows)

    @staticmethod
    def comp(st: States, rows, labels, stack) -> None:
        dep = st.pop(rows, np.zeros(len(rows), dtype=INT))
        st.pop(rows, np.ones(len(rows), dtype=INT))
        head = st.stack[rows, 0, st.sp[rows, 0] - 1]
        st.add_arcs(rows, head, dep, labels)

    # --- trees ---------------------------------------------------------------------
    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        """Projectivized as arc-eager's; a second root and any after it hang on
        the first (the system builds one root), which ``covers`` reports."""
        heads = list(heads)
        roots = [w for w, hd in enumerate(heads, 1) if hd == 0]
        for w in roots[1:]:
            heads[w - 1] = roots[0]
        return super().prepare_tree(heads, labels)

    def covers(self, heads: Sequence[int], labels: Sequence[str]) -> bool:
        return sum(1 for h in heads if h == 0) == 1 and super().covers(heads, labels)

    def extra_roots(self, heads: Sequence[int]) -> int:
        return max(0, sum(1 for h in heads if h == 0) - 1)
