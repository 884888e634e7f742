"""``stacks``: how full a planar_parser's stack is when the buffer empties."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import numpy as np
import typer

from spacy_planar.cli._app import fail, flag, load_pipeline, msg
from spacy_planar_lab._app import lab_app
from spacy_planar.corpus.files import given_sentences, input_docs
from spacy_planar.errors import Errors
from spacy_planar.io.conllu import read_conllu
from spacy_planar.parser.transition.driver import drive, greedy_chooser


class EndOfBuffer:
    """A greedy parse watched (its chooser wrapped: ``watching``): the words on the active
    stack when each sentence's buffer first empties, and the moves made
    after that. A greedy parser that shifts where it should attach reaches
    the end of the buffer with fuller stacks, and must then sort them out
    (swap: SWAP back and forth; the systems that stop at the end of the
    buffer leave the words without a head as roots, or UNSHIFT them under
    the tree constraint)."""

    def __init__(self):
        from spacy_planar.parser.systems.state import MOVE_NAMES

        self.move_names = MOVE_NAMES
        self.first: Dict[int, int] = {}  # unit (token offset) -> stack size
        self.moves: Dict[str, int] = {}

    def watching(self, system, choose):
        """``choose`` (a ``driver.Chooser``) that also records, before each move, each live
        sentence's stack where its buffer is empty for the first time, and every move from then on."""

        def watched(st, oracle, rows, offsets, live):
            actions = choose(st, oracle, rows, offsets, live)
            for r in np.flatnonzero(live & (actions >= 0)).tolist():
                unit = int(offsets[r])
                if unit not in self.first and st.bp[r] == 0:
                    self.first[unit] = int(st.sp[r, st.active[r]])
                if unit in self.first:
                    move = self.move_names[int(system.table.move_of[actions[r]])]
                    self.moves[move] = self.moves.get(move, 0) + 1
            return actions

        return watched

    def summary(self, top: int = 8) -> Dict:
        sizes = np.array(list(self.first.values()), dtype=np.int64)
        counts = np.bincount(np.minimum(sizes, top), minlength=top + 1) if len(sizes) else np.zeros(top + 1, int)
        return {"sentences": len(sizes), "mean_stack": float(sizes.mean()) if len(sizes) else 0.0,
                "stack_sizes": {(f"{k}+" if k == top else str(k)): int(c) for k, c in enumerate(counts.tolist()) if c},
                "moves_after": dict(sorted(self.moves.items()))}


@lab_app.command()
def stacks(
    model: str = typer.Argument(..., help="A trained pipeline with a planar_parser"),
    gold: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U (its words are parsed)"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """How full a planar_parser's stack is when each sentence's buffer empties.

    How full the stack is when the buffer empties: parse the words of
    ``gold`` and report, over the sentences, the words on the active stack
    (the root too where the system keeps it there) when the buffer first
    empties, and the moves made after that."""

    from spacy_planar.parser import PlanarParser

    sents = list(read_conllu(gold))
    nlp = load_pipeline(model)
    pipes = [(name, p) for name, p in nlp.pipeline if isinstance(p, PlanarParser)]
    if not pipes:
        fail(Errors.E082.format(model=model, pipes=", ".join(nlp.pipe_names)))
    observer = EndOfBuffer()
    name, parser = pipes[0]
    docs = list(given_sentences(nlp, input_docs(nlp, sents), disable=[name]))
    scorer = parser.model.predict(docs)  # one batch, one sentence a Doc: a unit's first token names it
    offsets = np.cumsum([0] + [len(doc) for doc in docs])[:-1]
    system = parser.system
    choose = greedy_chooser(system, lambda *x: parser.model.ops.to_numpy(scorer(*x)))
    drive(system, system.init_states([len(doc) for doc in docs], finish=parser.settings.single_root),
          observer.watching(system, choose), offsets=offsets)
    res = observer.summary()
    if as_json:
        print(json.dumps(res, indent=2))
        return
    msg.info(f"{res['sentences']} sentences; words on the stack when the buffer first empties: "
             f"mean {res['mean_stack']:.2f}")
    msg.table(list(res["stack_sizes"].items()), header=("stack size", "sentences"))
    msg.table(list(res["moves_after"].items()), header=("move after the buffer emptied", "count"))
