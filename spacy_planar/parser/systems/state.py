"""The batched state core shared by every transition system.

A :class:`States` holds the configurations of a batch of sentences as numpy
arrays, one row per sentence; positions are word numbers (1..n) with 0 the
artificial root, and -1 means "none". Every operation (validity, applying one
action per state, feature gathering, the oracles) works on all rows at once,
so the parse loop costs a few array operations per transition, whatever the
batch size. The same core serves the oracle, training and parsing.

* ``stack[b, s, :sp[b, s]]``: stack s of sentence b, bottom first (one stack,
  or two for 2-planar, where ``active[b]`` names the active one);
* ``buf[b, :bp[b]]``: the buffer as a stack, its front (b0) last, so that
  SHIFT pops it and SWAP pushes a word back in front;
* ``heads``, ``labels``: the arcs built so far (label ids);
* ``lmost``, ``rmost``: leftmost / rightmost dependent so far;
* ``comp``: connected component of each word in the graph built so far,
  for the acyclicity check of the planar systems (no undirected path);
* ``last``: the previous move (2-planar never SWITCHes twice in a row);
* ``unshifted``: words put back into the buffer by the tree constraint's
  UNSHIFT (``finish``: see ``Planar``), each at most once; ``roots_out``:
  words that left every stack (and β) without a head; ``n_arcs``: arcs built.
"""
from __future__ import annotations

import copy
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from spacy_planar.parser.systems import _core
from spacy_planar.trees.pseudoproj import undecorate

INT = np.int64

# Moves: the action inventory of a system is (move, label) pairs (declared
# once, for C and Python alike, in _core.pxd).
SHIFT, REDUCE, LEFT, RIGHT, SWITCH, SWAP = _core.MOVES
# the columns of a batch's per-move arrays (valid moves, the oracles' costs): one per C move
N_MOVES = len(_core.MOVES)
# a move with a word for argument instead of a label (the top-down system's
# prediction); Python only, after the C moves
PRED = N_MOVES
MOVE_NAMES = ("SHIFT", "REDUCE", "LEFT-ARC", "RIGHT-ARC", "SWITCH", "SWAP", "PRED")
LABELLED = (LEFT, RIGHT)

# Feature templates: stack / inactive stack / buffer positions, their
# leftmost / rightmost dependents (l, r), second leftmost / rightmost (l2,
# r2) or head (h). 13 slots, as spaCy's parser; 2-planar adds the inactive
# stack's top two.
FEATURES_1STACK = ("s0", "s1", "s2", "b0", "b1", "b2", "s0.l", "s0.r", "s0.l2", "s0.r2",
                   "s1.l", "s1.r", "b0.l")
FEATURES_2STACK = FEATURES_1STACK + ("i0", "i1")
# Label features: the label of the arc into each of these words (-1: none yet).
LABEL_FEATURES = ("s0", "s1", "s0.l", "s0.r", "b0.l")
# columns of States.info, the per-word facts that features read
LMOST, RMOST, LMOST2, RMOST2, HEAD, LABEL = _core.INFO_COLUMNS
RELATIONS = {"l": LMOST, "r": RMOST, "l2": LMOST2, "r2": RMOST2, "h": HEAD}


class ActionTable:
    """Actions as data: the unlabelled moves of a system first, then one
    action per (labelled move, label), in a fixed order, so that a saved
    model rebuilds the identical output layer."""

    def __init__(self, moves: Sequence[int], labels: Sequence[str]):
        self.moves = tuple(moves)
        self.labels = tuple(labels)
        move_of, label_of = [], []
        for m in self.moves:
            if m in LABELLED:
                move_of.extend([m] * len(self.labels))
                label_of.extend(range(len(self.labels)))
            else:
                move_of.append(m)
                label_of.append(-1)
        self.move_of = np.array(move_of, dtype=INT)
        self.label_of = np.array(label_of, dtype=INT)
        # the first action of each move, by move: (move, label) -> action in one lookup
        self.first_action = np.zeros(max(self.moves) + 1, dtype=INT)
        for m in self.moves:
            self.first_action[m] = int(np.flatnonzero(self.move_of == m)[0])
        self.labelled = np.isin(np.arange(max(self.moves) + 1), LABELLED)

    def __len__(self) -> int:
        return len(self.move_of)

    def action(self, moves: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Action ids of (move, label) pairs (label ignored for unlabelled moves)."""
        return self.first_action[moves] + np.where(self.labelled[moves], np.maximum(labels, 0), 0)

    def names(self) -> List[str]:
        return [MOVE_NAMES[m] + (f"-{self.labels[l]}" if l >= 0 else "") for m, l in zip(self.move_of, self.label_of)]

    def factors(self) -> Tuple[List[str], np.ndarray]:
        """The parts every action shares with others, for an output layer
        that scores labels apart from moves: its move, and for a labelled
        move its label's parts (the plain label, and a pseudo-projective
        decoration apart: ``obl`` and ``\u2191nmod`` of ``obl\u2191nmod``). Returns
        the names of the parts and the (actions, parts) 0/1 matrix saying
        which parts make up each action."""
        names: Dict[str, int] = {}
        pairs = []
        for a, (m, l) in enumerate(zip(self.move_of.tolist(), self.label_of.tolist())):
            parts = [MOVE_NAMES[m]]
            if l >= 0:
                label = self.labels[l]
                base = undecorate(label)
                parts += [f"label {base}"] + ([f"mark {label[len(base):]}"] if label != base else [])
            pairs += [(a, names.setdefault(p, len(names))) for p in parts]
        matrix = np.zeros((len(self), len(names)), dtype=np.float32)
        for a, k in pairs:
            matrix[a, k] = 1.0
        return list(names), matrix


class ActionSpace:
    """Everything a system can do in a state, as ids: the table's actions
    (``table``: its moves, each labelled move once per label) and, after
    them, the actions of a move that takes a word (``word_move``: top-down's
    PRED(k), action ``len(table) + k``, one per position of the batch's
    longest sentence, T), or none. The model scores ``n_scored`` per state:
    the table's actions, and the word move once (to which each word's arc
    score is added)."""

    def __init__(self, table: ActionTable, word_move: Optional[int] = None):
        self.table = table
        self.word_move = word_move
        self.n_table = len(table)
        self.n_scored = self.n_table + (word_move is not None)

    def size(self, T: int) -> int:
        """The actions of a batch whose states have T positions."""
        return self.n_table + (T if self.word_move is not None else 0)

    def action(self, moves: np.ndarray, args: np.ndarray) -> np.ndarray:
        """Action ids of (move, label id) pairs, or (word move, word)."""
        if self.word_move is None:
            return self.table.action(moves, args)
        word = moves == self.word_move
        table = self.table.action(np.where(word, self.table.moves[0], moves), args)
        return np.where(word, self.n_table + args, table)

    def takes_word(self, actions: np.ndarray) -> np.ndarray:
        """Which of ``actions`` are the word move's (their word: action - n_table)."""
        return actions >= self.n_table


class States:
    """Configurations of a batch of sentences (see the module docstring)."""

    # the per-row arrays, which ``select`` keeps row by row (``tags`` may be None)
    ROW_FIELDS = ("n", "stack", "sp", "buf", "bp", "info", "comp", "ndeps", "active", "last", "steps",
                  "unshifted", "roots_out", "n_arcs", "tags")

    def __init__(self, lengths: Sequence[int], n_stacks: int = 1, root_on_stack: bool = False,
                 finish: bool = False):
        n = np.asarray(lengths, dtype=INT)
        B = len(n)
        T = int(n.max()) + 1 if B else 1
        self.n = n
        self.B, self.T = B, T
        self.rows = np.arange(B)
        self.stack = np.full((B, n_stacks, T + 1), -1, dtype=INT)
        self.sp = np.zeros((B, n_stacks), dtype=INT)
        pos = np.arange(T + 1)
        # buffer: words n..1, so that word 1 (the front) is on top
        self.buf = np.where(pos[None, :] < n[:, None], n[:, None] - pos[None, :], -1).astype(INT)
        self.bp = n.copy()
        # per word: leftmost, rightmost, 2nd leftmost, 2nd rightmost dependent, head, label;
        # one array so that features gather them in one go, with a view per column
        self.info = np.full((B, T, len(_core.INFO_COLUMNS)), -1, dtype=INT)
        self.lmost, self.rmost = self.info[:, :, LMOST], self.info[:, :, RMOST]
        self.lmost2, self.rmost2 = self.info[:, :, LMOST2], self.info[:, :, RMOST2]
        self.heads, self.labels = self.info[:, :, HEAD], self.info[:, :, LABEL]
        self.comp = np.tile(np.arange(T, dtype=INT), (B, 1))
        self.ndeps = np.zeros((B, T), dtype=INT)
        self.active = np.zeros(B, dtype=INT)
        self.last = np.full(B, -1, dtype=INT)
        self.steps = np.zeros(B, dtype=INT)
        self.unshifted = np.zeros((B, T), dtype=bool)
        self.roots_out = np.zeros(B, dtype=INT)
        self.n_arcs = np.zeros(B, dtype=INT)
        self.finish = finish
        # per word: its tag id, for the systems that read tags (top-down's FIRST); None: none given
        self.tags: Optional[np.ndarray] = None
        self._memo: Dict[Tuple[str, int], np.ndarray] = {}
        if root_on_stack:
            self.stack[:, 0, 0] = 0
            self.sp[:, 0] = 1

    # --- reading -------------------------------------------------------------
    def positions(self) -> np.ndarray:
        """[B, 8]: s0 s1 s2 (active stack, top first), b0 b1 b2 (buffer,
        front first), i0 i1 (inactive stack); -1 where absent. Memoised until
        the states change (validity, oracle and features share it)."""
        return self.memoised(("pos", 0), lambda: _core.positions(self.stack, self.sp, self.active,
                                                                    self.buf, self.bp))

    def memoised(self, key: Tuple[str, int], compute: Callable[[], np.ndarray]) -> np.ndarray:
        """``compute()``, remembered under ``key`` until the states change
        (every change clears the memo); a value that depends on a gold has
        its ``id`` in the key."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def s(self, k: int = 0) -> np.ndarray:
        """The k-th word from the top of the active stack (k < 3), or -1."""
        return self.positions()[:, k]

    def b(self, k: int = 0) -> np.ndarray:
        """The k-th word of the buffer (b0 = the front, k < 3), or -1."""
        return self.positions()[:, 3 + k]

    def at(self, table: np.ndarray, words: np.ndarray) -> np.ndarray:
        """table[b, words[b]] with -1 for absent words."""
        if table.dtype == INT:
            return _core.at(table, words)
        return np.where(words >= 0, table[self.rows, np.maximum(words, 0)], -1)

    def switch(self, idx: np.ndarray) -> None:
        """Swap the active and the inactive stack of rows idx."""
        self._memo.clear()
        self.active[idx] = 1 - self.active[idx]

    def changing(self) -> None:
        """Forget what ``memoised`` kept: the caller is about to change the
        arrays in place (a system's C loop applying moves)."""
        self._memo.clear()

    def across(self) -> "States":
        """The same states as seen after a SWITCH, for looking only: the
        other stack active and SWITCH the last move. A view, not a copy:
        every other array is this one's, so nothing may be applied to it;
        these states are left as they are (an oracle asked what the other
        stack allows does not move the parse it is asked about)."""
        # a shallow copy (copy.copy), not the constructor, which makes initial states: the view shares
        # these states' arrays and has only `active`, `last` and the memo of its own
        out = copy.copy(self)
        out.active = 1 - self.active
        out.last = np.full_like(self.last, SWITCH)
        out._memo = {}
        return out

    def top(self, rows: np.ndarray, stacks: np.ndarray) -> np.ndarray:
        """The top word of stack stacks[k] of rows[k], or -1 (for a few rows,
        without computing every position)."""
        sp = self.sp[rows, stacks]
        return np.where(sp > 0, self.stack[rows, stacks, np.maximum(sp - 1, 0)], -1)

    def in_stack(self, stack: np.ndarray) -> np.ndarray:
        """[B, T] boolean: word w is on the given stack of row b."""
        out = np.zeros((self.B, self.T), dtype=bool)
        st = self.stack[self.rows, stack]  # [B, T + 1]
        live = np.arange(st.shape[1])[None, :] < self.sp[self.rows, stack][:, None]
        r, c = np.nonzero(live)
        out[r, st[r, c]] = True
        return out

    # --- changing (each on the rows ``idx``) ------------------------------------
    def push(self, idx: np.ndarray, stack, words: np.ndarray) -> None:
        """Push words[k] onto stack ``stack`` (one per row, or the same for all) of rows idx[k]."""
        self._memo.clear()
        self.stack[idx, stack, self.sp[idx, stack]] = words
        self.sp[idx, stack] += 1

    def pop(self, idx: np.ndarray, stack: np.ndarray) -> np.ndarray:
        self._memo.clear()
        self.sp[idx, stack] -= 1
        return self.stack[idx, stack, self.sp[idx, stack]]

    def pop_buffer(self, idx: np.ndarray) -> np.ndarray:
        self._memo.clear()
        self.bp[idx] -= 1
        return self.buf[idx, self.bp[idx]]

    def push_buffer(self, idx: np.ndarray, words: np.ndarray) -> None:
        self._memo.clear()
        self.buf[idx, self.bp[idx]] = words
        self.bp[idx] += 1

    def add_arcs(self, idx: np.ndarray, heads: np.ndarray, deps: np.ndarray, labels: np.ndarray) -> None:
        """Add the arcs heads[k] -> deps[k] (label ids) to rows idx[k]."""
        if len(idx) == 0:
            return
        self._memo.clear()
        self.n_arcs[idx] += 1
        _core.add_arcs(self.info, self.ndeps, self.comp, idx.astype(INT, copy=False),
                          heads.astype(INT, copy=False), deps.astype(INT, copy=False),
                          labels.astype(INT, copy=False))

    def select(self, keep: np.ndarray) -> "States":
        """A new States holding only the rows ``keep`` (the parse loop drops
        finished rows, so that each step costs in proportion to the live ones)."""
        # field by field, not the constructor: the constructor makes initial states from sentence lengths,
        # this keeps rows of states in the middle of their parse
        out = object.__new__(States)
        for name in self.ROW_FIELDS:
            value = getattr(self, name)
            setattr(out, name, None if value is None else value[keep])  # fancy indexing copies
        out.B, out.T, out.finish = len(keep), self.T, self.finish
        out.rows = np.arange(out.B)
        out.lmost, out.rmost = out.info[:, :, LMOST], out.info[:, :, RMOST]
        out.lmost2, out.rmost2 = out.info[:, :, LMOST2], out.info[:, :, RMOST2]
        out.heads, out.labels = out.info[:, :, HEAD], out.info[:, :, LABEL]
        out._memo = {}
        return out

    def signature(self) -> np.ndarray:
        """[B, K] integers equal for two rows exactly when nothing ahead can
        tell their states apart: the stacks and the buffer whole, the pointers,
        and for each word in them what validity and features read (its head,
        label, outer dependents and their labels, component, dependent count,
        whether it was unshifted). Rows that differ only in the arcs among
        words out of play have equal signatures (beam search merges them)."""
        B, T = self.B, self.T
        depth = np.arange(self.stack.shape[2])
        stacks = np.where(depth[None, None, :] < self.sp[:, :, None], self.stack, -1).reshape(B, -1)
        buf = np.where(np.arange(self.buf.shape[1])[None, :] < self.bp[:, None], self.buf, -1)
        held = np.concatenate([stacks, buf], axis=1)
        on = np.zeros((B, T), dtype=bool)
        r, c = np.nonzero(held >= 0)
        on[r, held[r, c]] = True
        deps = self.info[:, :, [LMOST, RMOST, LMOST2, RMOST2]]  # the outer dependents
        dep_labels = np.take_along_axis(self.labels, np.maximum(deps, 0).reshape(B, -1), axis=1).reshape(B, T, 4)
        words = np.concatenate([self.info, np.where(deps >= 0, dep_labels, -1), self.comp[:, :, None],
                                self.ndeps[:, :, None], self.unshifted[:, :, None]], axis=2)
        words = np.where(on[:, :, None], words, -2).reshape(B, -1)
        return np.concatenate([held, self.active[:, None], self.roots_out[:, None], self.n_arcs[:, None], words],
                              axis=1)

    # --- output ------------------------------------------------------------------
    def trees(self, root_label: int, rows: Optional[Sequence[int]] = None) -> List[Tuple[List[int], List[int]]]:
        """Per sentence (of ``rows``, default all) (heads, label ids) over words
        1..n: headless words become roots with ``root_label``. A single-headed
        acyclic graph, so always a tree."""
        rows = np.arange(self.B) if rows is None else np.asarray(rows, dtype=INT)
        h = self.heads[rows, 1:]
        heads = np.where(h < 0, 0, h).tolist()
        labels = np.where(h < 0, root_label, self.labels[rows, 1:]).tolist()
        return [(hs[:n], ls[:n]) for hs, ls, n in zip(heads, labels, self.n[rows].tolist())]


class FeaturePlan:
    """Feature templates compiled for gathering: each template is a base
    position (s0-s2, b0-b2, i0-i1) or a relation (l, r, l2, r2, h) of one,
    so that one C loop over the batch gathers them all."""

    BASES = ("s0", "s1", "s2", "b0", "b1", "b2", "i0", "i1")

    def __init__(self, templates: Sequence[str], label_templates: Sequence[str] = ()):
        def parse(name: str) -> Tuple[int, int]:
            base, _, rel = name.partition(".")
            return self.BASES.index(base), RELATIONS[rel] if rel else -1

        parsed = [parse(t) for t in templates]
        self.base = np.array([b for b, _ in parsed], dtype=INT)
        self.rel = np.array([r for _, r in parsed], dtype=INT)
        labelled = [parse(t) for t in label_templates]
        self.lab_base = np.array([b for b, _ in labelled], dtype=INT)
        self.lab_rel = np.array([r for _, r in labelled], dtype=INT)

    def gather(self, states: States, offsets: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(feature tokens [B, F], label ids of their arcs [B, L]): word w of
        row b is token ``offsets[b] + w - 1`` (default offsets 0); -1 absent."""
        if offsets is None:
            offsets = np.zeros(states.B, dtype=INT)
        return _core.gather(states.positions(), states.info, self.base, self.rel,
                               self.lab_base, self.lab_rel, offsets.astype(INT, copy=False))

