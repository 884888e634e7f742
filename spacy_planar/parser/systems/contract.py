"""The contract of a transition system: what the generic code (``driver.py``,
``beam.py``, the oracles' base, the component) may ask of a system, and the
shapes of what it answers. A new system subclasses ``TransitionSystem``
(``base.py``) and keeps to this; nothing else reads its attributes, but
its own oracle (``oracles/``, built for it), which may also read what its
paper's oracle needs of it: ``unshifted_front`` (arc-eager), ``lazy``
(swap), ``ihr`` (top-down), ``root_id`` (2-planar).

Required of each system (its paper's transition table):

- ``name`` (the catalog's), ``moves`` (the table's moves, ``state.py``'s
  ids), ``valid_moves``, ``transitions`` (move -> function applying it to
  rows; or ``apply_moves`` whole, as the C fast paths do), ``max_steps``.

Optional, with the base's defaults:

- the configuration: ``n_stacks``, ``root_on_stack``, ``init_states``
  (``tags`` given where ``wants_tags``), ``terminal``;
- the trees: ``prepare_tree`` (the tree the oracle derives: projectivized,
  planes), ``decode_tree`` (back to the treebank's terms), ``covers``,
  ``extra_roots`` (gold roots it trains as dependents, counted: W125);
- the action space: ``word_move`` (a move that takes a word: top-down's
  PRED(k)), and then ``valid_actions``, ``apply``, ``best_actions``,
  ``limit_candidates`` (beam) for its actions;
- what the model reads: ``features`` / ``label_features`` (templates),
  ``model_inputs`` (more inputs after the features: top-down's arc scorer),
  ``step_record`` and ``training_arrays`` (the static oracle's steps as
  training targets, with those inputs);
- ``ud_label_rules`` (labels UD rules out for an arc), ``dynamic_oracle``
  (an oracle with costs: exploration), ``reads_tags`` (it learns top-down's
  FIRST sets at ``initialize``).

The action space (``state.ActionSpace``, ``system.actions``): the table's
actions (``state.ActionTable``: each unlabelled move once, each labelled one
once per label) and, after them, one action per word for the word move.

Shapes, for a batch of B states of T positions (the longest sentence + 1),
A = ``actions.size(T)`` actions (the model's output layer scores
``actions.n_scored`` of them, and its arc scorer the words of a word move),
F and L the feature templates, M > max(moves) move columns (the core's six,
top-down's seventh: PRED); ``check`` tests them, and ``driver.drive`` calls it
on its first step under ``SPACY_PLANAR_DEBUG`` (the tests set it):

==========================  =====================================
``valid_moves(st)``         bool [B, M]
``valid_actions(st)``       bool [B, A]
``is_final(st)``            bool [B]
``model_inputs(st)``        int [B, F], int [B, L], then arrays of B rows
``best_actions(scores)``    int [B] (-1: none), scores float [B, A]
``step_record(st)``         int [B, E]
==========================  =====================================
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from spacy_planar.errors import Errors, unexpected
from spacy_planar.parser.systems.state import States


def check(system, st: States) -> None:
    """The shapes above, for ``system`` in the states ``st``; a mismatch is
    an internal error (E126, ``errors.unexpected``)."""
    B, T = st.B, st.T
    A = system.actions.size(T)
    inputs = system.model_inputs(st)
    hooks = [  # in order, each checked before the next (which may build on it) runs
        ("valid_moves", lambda: system.valid_moves(st), (B, None), bool, max(system.moves) + 1),
        ("valid_actions", lambda: system.valid_actions(st), (B, A), bool, 0),
        ("is_final", lambda: system.is_final(st), (B,), bool, 0),
        ("features", lambda: inputs[0], (B, len(system.features)), np.integer, 0),
        ("label features", lambda: inputs[1], (B, len(system.label_features)), np.integer, 0),
        *((f"model input {k}", lambda more=more: more, (B,) + (None,) * (more.ndim - 1), np.integer, 0)
          for k, more in enumerate(inputs[2:], 3)),
        ("best_actions", lambda: system.best_actions(np.zeros((B, A), dtype=np.float32), st, ~system.is_final(st)),
         (B,), np.integer, 0),
        ("step_record", lambda: system.step_record(st), (B, None), np.integer, 0),
    ]
    for hook, answer, shape, kind, at_least in hooks:
        array = answer()
        if not _fits(array, shape, kind, at_least):
            unexpected(Errors.E126.format(system=system.name, hook=hook, shape=_shape(array), expected=shape))


def _fits(array, shape: Tuple, kind, at_least: int) -> bool:
    if not isinstance(array, np.ndarray) or array.ndim != len(shape) or not np.issubdtype(array.dtype, kind):
        return False
    if any(want is not None and got != want for got, want in zip(array.shape, shape)):
        return False
    return array.ndim < 2 or array.shape[1] >= at_least


def _shape(array) -> str:
    return f"{array.dtype}{list(array.shape)}" if isinstance(array, np.ndarray) else type(array).__name__
