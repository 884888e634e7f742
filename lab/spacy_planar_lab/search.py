"""``search-errors``: which of a planar_parser's wrong trees a wider beam
could fix. For each sentence the parser gets wrong at a beam width, the
model's score of the gold tree (the summed log-probabilities of its static
oracle derivation, as the beam scores sequences) is set against its score of
the tree the parser chose: where gold scores higher, the search lost it (a
search error, which a wider beam can fix); where it scores lower, the model
prefers the wrong tree (a model error, which no beam fixes). Collins & Roark
(2004) and Huang & Sagae (2010) split errors this way."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np
import typer

from spacy_planar.cli._app import flag, load_pipeline, msg
from spacy_planar_lab._app import lab_app
from spacy_planar.corpus.files import given_sentences, input_docs
from spacy_planar.io.conllu import read_conllu
from spacy_planar.parser.shared.softmax import log_softmax
from spacy_planar.parser.shared.units import batches
from spacy_planar.parser.transition.driver import oracle_run


def derivation_scores(parser, docs: Sequence, trees: Sequence) -> np.ndarray:
    """Per Doc (one unit each): the model's summed log-probability of the
    static oracle's derivation of its tree (``trees``: (heads, labels) in
    the treebank's terms); -inf for a tree whose derivation needs a label
    the parser does not have (a pseudo-projective lift it never saw, or a
    label unseen in training): no sequence of its actions builds it."""
    system = parser.system
    prepared = [parser.codec.encode(tree) for tree in trees]
    out = np.array([0.0 if all(label in system.label_ids for label in t[1]) else -np.inf for t in prepared])
    derivable = np.flatnonzero(np.isfinite(out))
    for part in batches([len(docs[i]) for i in derivable], 256):
        idx = derivable[part]
        group = [docs[i] for i in idx]
        scorer = parser.model.predict(group)
        starts = np.cumsum([0] + [len(d) for d in group])[:-1]
        run = oracle_run(system, [prepared[i] for i in idx], with_features=True, keep_trees=False)
        for rows, feats, labs, actions, moves, record in run.steps:
            offsets = starts[rows]
            ids = np.where(feats >= 0, feats + offsets[:, None], -1)
            targets, valid, more = system.training_arrays(actions, moves, record, offsets)
            scores = np.asarray(parser.model.ops.to_numpy(scorer(ids, labs, *more)), dtype=np.float64)
            logp = log_softmax(np, scores, valid, fill=-np.inf)
            np.add.at(out, idx[rows], logp[np.arange(len(rows)), targets.argmax(axis=1)])
    return out


def search_errors(model_dir: Path, gold: Path, widths: Sequence[int]) -> List[Dict]:
    nlp = load_pipeline(model_dir, None)
    name = next(n for n, p in nlp.pipeline if p.__class__.__name__ == "PlanarParser")
    parser = nlp.get_pipe(name)
    sents = [s for s in read_conllu(gold) if s.heads is not None]
    docs = list(given_sentences(nlp, input_docs(nlp, sents), disable=[name]))
    gold_trees = [(list(s.heads), list(s.deprels)) for s in sents]
    # scored as the model was trained (its tree transforms applied: the codec's way in), compared in UD
    codec = parser.codec
    gold_score = derivation_scores(parser, docs, [codec.transformed(g) for g in gold_trees])
    out = []
    for width in widths:
        # each chosen tree in the transforms' terms, as the model derives it (the system's decoding alone)
        chosen = [codec.from_system(units[0].tree) for units in parser.predict(docs, beam_width=int(width))]
        wrong = [i for i, (c, g) in enumerate(zip(chosen, gold_trees)) if codec.restored(c)[0] != g]
        chosen_score = derivation_scores(parser, [docs[i] for i in wrong], [chosen[i] for i in wrong])
        # a chosen tree whose static derivation needs a lift the parser never saw (its own derivation lifted
        # otherwise) has no score to set against gold's: counted apart, in neither kind
        scored = np.isfinite(chosen_score)
        search = int((gold_score[wrong][scored] > chosen_score[scored] + 1e-9).sum())
        out.append({"beam_width": int(width), "sentences": len(sents), "wrong": len(wrong),
                    "search_errors": search, "model_errors": int(scored.sum()) - search,
                    "not_rederived": int((~scored).sum()),
                    "search_error_percent": 100.0 * search / max(1, int(scored.sum()))})
    return out


@lab_app.command("search-errors")
def search_errors_cmd(
    model: Path = typer.Argument(..., help="A trained pipeline with a planar_parser"),
    gold: Path = typer.Argument(..., help="Gold CoNLL-U (dev)"),
    widths: List[int] = typer.Option([1, 8], "--beam", help="Beam widths (repeat)"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Split the parser's wrong trees into search and model errors.

    For each beam width: the sentences whose tree is wrong, those whose gold
    tree the model scores higher than the tree it chose (search errors: a
    wider beam can fix them) and the rest (model errors: no beam can). Trees
    are compared whole, heads and labels; scores are the sums of the
    log-probabilities of the static oracle's derivation of each tree."""
    rows = search_errors(model, gold, widths)
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    msg.table([(r["beam_width"], r["sentences"], r["wrong"], r["search_errors"], r["model_errors"],
                f"{r['search_error_percent']:.1f}") for r in rows],
              header=("beam", "sentences", "wrong trees", "search errors", "model errors", "search %"),
              divider=True, aligns=("r",) * 6, title=f"{model} on {gold}")
