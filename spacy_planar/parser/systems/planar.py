"""The planar transition system (Gómez-Rodríguez & Nivre 2010, section 4, Figure 3).

Configuration (σ, β, A), no artificial root: the words left without a head at
the end are roots (the system builds planar forests; links from the root are
not counted by planarity, footnote 3). Arc transitions are fine-grained: they
only add the link, and words without a head may be reduced.

    SHIFT        (σ, wi|β, A)    ⇒ (σ|wi, β, A)
    REDUCE       (σ|wi, β, A)    ⇒ (σ, β, A)
    LEFT-ARC_l   (σ|wi, wj|β, A) ⇒ (σ|wi, wj|β, A ∪ {(wj, l, wi)})
                 only if wi has no head (single-head) and no undirected path wi ~ wj (acyclicity)
    RIGHT-ARC_l  (σ|wi, wj|β, A) ⇒ (σ|wi, wj|β, A ∪ {(wi, l, wj)})
                 only if wj has no head and no undirected path wi ~ wj

Terminal: β = []. At most 3n - 1 transitions (n SHIFTs, n REDUCEs, n - 1 arcs).
The acyclicity check is "wi and wj in different components" (``States.comp``).

Tree constraint (``States.finish``, the component's ``single_root``): the
system builds forests, and a word left without a head at the end is one more
root. Under the constraint the parser itself attaches such words, as Nivre &
Fernández-González (2014) do for arc-eager with UNSHIFT (and spaCy's parser
does), and the moves leave one root. While β is not empty, one word at most
leaves the stacks without a head: the root, which links may then cover (as
planar trees allow; an artificial root at position 0 would make planar trees
projective, footnote 3). The words left on the stack and in β that share a
tree are next to each other (no link covers a word still there), so the
others can join the root's tree only while it keeps a word there. Planar,
once the root is gone:

* REDUCE of the root itself, or of the last word of its tree left on the
  stack and in β, is invalid (a word of the tree must be left below s0 or be
  b0); when β holds one word, also unless that word is in s0's tree or
  without a head;
* with one word in β: RIGHT-ARC only from a word of the root's tree (β's
  last word joins it, or stays headless to take the words below as
  dependents), SHIFT only onto a stack whose bottom word is in the root's
  tree (once β is empty, a word finds its head below it only).

2-planar (one stack each plane): no word leaves both stacks headless while β
is not empty (the root stays on the other stack). When β is empty

    UNSHIFT      (σ|wi, [], A) ⇒ (σ, [wi], A)     wi headless, never unshifted
                 before, and another root left (on a stack or gone)

is applied automatically (there is nothing to choose). The unshifted wi is
then attached with the usual moves (RIGHT-ARC from a word below it, or it
takes s0 as its dependent by LEFT-ARC, REDUCE passing over words that have a
head, but not over the last word of the active stack outside wi's tree while
another root is left) and leaves β as soon as it has a head; SHIFT removes it
headless only when its stack is empty (and, in 2-planar, it cannot SWITCH).
In 2-planar it may SWITCH to the other stack when its active stack holds no
word outside its tree and the other one does; its link there can cross a
link of that plane made while it was gone from it (a third plane: below
0.5% of random walks, ``tests/test_systems.py``). Otherwise two words of a
stack with none left between them on it can be linked without crossing a
link of that stack's plane, so the output stays planar (2-planar). Terminal:
β = [] and no headless word left on the stacks, or one root in all. Each word
is unshifted at most once: at most 4n transitions. Random walks under the
constraint end in one root (``tests/test_systems.py``).

Oracles: ``oracles/planar.py``. A tree that is not planar is trained on the
links that fit (``prepare_tree``): links are kept greedily in the order the
parser would build them (by right end, then nearest left end first) unless
they cross a kept one; the words whose links are dropped become roots.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from spacy_planar.parser.systems import _planar
from spacy_planar.parser.systems.base import TransitionSystem, Tree
from spacy_planar.parser.systems.state import INT, LEFT, N_MOVES, REDUCE, RIGHT, SHIFT, SWITCH, States
from spacy_planar.trees.algorithms import is_planar


def keep_planar(heads: Sequence[int]) -> list:
    """Dependents whose links are kept by the greedy planar choice."""
    links = sorted(((max(h, d), -min(h, d), d) for d, h in enumerate(heads, 1) if h > 0))
    kept, spans = [], []
    for right, neg_left, d in links:
        left = -neg_left
        if not any(a < left < b < right or left < a < right < b for a, b in spans):
            kept.append(d)
            spans.append((left, right))
    return kept


class Planar(TransitionSystem):
    name = "planar"
    moves = (SHIFT, REDUCE, LEFT, RIGHT)

    @staticmethod
    def max_steps(n: int) -> int:
        return 4 * n  # 3n without the tree constraint

    def valid_moves(self, st: States) -> np.ndarray:
        s0, b0 = st.s(0), st.b(0)
        has_s, has_b = s0 >= 0, b0 >= 0
        both = has_s & has_b
        apart = st.at(st.comp, s0) != st.at(st.comp, b0)
        valid = np.zeros((st.B, N_MOVES), dtype=bool)
        valid[:, SHIFT] = has_b
        valid[:, REDUCE] = has_s
        valid[:, LEFT] = both & apart & (st.at(st.heads, s0) < 0)
        valid[:, RIGHT] = both & apart & (st.at(st.heads, b0) < 0)
        valid[:, SWITCH] = st.last != SWITCH  # used by 2-planar only
        if st.finish:
            self._tree_constraint(st, valid)
        return valid

    # --- the tree constraint (``States.finish``; its rules in the module docstring,
    # carried out by C loops over the batch: tests/reference.py has their numpy twins)
    @staticmethod
    def _tree_constraint(st: States, valid: np.ndarray) -> None:
        _planar.constrain_moves(valid.view(np.uint8), st.stack, st.sp, st.active, st.buf, st.bp, st.info,
                                 st.unshifted.view(np.uint8), st.roots_out, st.comp, st.n, st.n_arcs)

    def terminal(self, st: States) -> np.ndarray:
        done = st.bp == 0
        if st.finish:  # and no headless word left on the stacks, or one root in all
            unlinked = st.n - st.n_arcs  # headless words: on the stacks or gone (roots_out)
            done &= (unlinked == st.roots_out) | (unlinked <= 1)
        return done

    def apply_moves(self, st: States, idx: np.ndarray, moves: np.ndarray, labels: np.ndarray) -> None:
        """The moves of the module docstring's tables, carried out by one C loop
        over the rows (tests/reference.py states them in numpy, and
        tests/test_kernels.py checks that both give the same states), with the
        tree constraint's bookkeeping and automatic steps around them."""
        idx, moves, labels = (a.astype(INT, copy=False) for a in (idx, moves, labels))
        st.changing()
        if st.finish:
            # count the words leaving without a head; SHIFT of an unshifted b0 happens there
            done = _planar.leave_headless(idx, moves, st.stack, st.sp, st.active, st.buf, st.bp, st.info,
                                           st.unshifted.view(np.uint8), st.roots_out)
            if done.any():
                idx, moves, labels = idx[~done], moves[~done], labels[~done]
        _planar.planar_moves(idx, moves, labels, st.stack, st.sp, st.active, st.buf, st.bp, st.info, st.ndeps,
                              st.comp, st.n_arcs)
        if st.finish:  # the automatic steps: an unshifted word with its head leaves β; UNSHIFT
            _planar.settle(idx, st.stack, st.sp, st.active, st.buf, st.bp, st.info, st.unshifted.view(np.uint8),
                            st.n, st.n_arcs)

    def prepare_tree(self, heads: Sequence[int], labels: Sequence[str]) -> Tree:
        kept = set(keep_planar(heads))
        if len(kept) == sum(1 for h in heads if h > 0):
            return list(heads), list(labels)
        return ([h if (h == 0 or d in kept) else 0 for d, h in enumerate(heads, 1)],
                [l if (h == 0 or d in kept) else self.root_label for d, (h, l) in enumerate(zip(heads, labels), 1)])

    def covers(self, heads, labels) -> bool:
        return is_planar(heads)

