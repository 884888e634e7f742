"""What the ``planar_parser`` component does at parse time, apart from the
component: its units parsed in batches of similar length (greedy or with a
beam), whitespace tokens set aside and attached after the parse, and the
trees brought back to UD and checked before they are written."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
from spacy.tokens import Doc

from spacy_planar.io.conllu import HEAD_PROB_DECIMALS, HEAD_PROBS_KEY, MOVE_LOGP_KEY, PARSES_KEY
from spacy_planar.parser.shared.units import Parsed, Unit, batches, unit_words, with_whitespace
from spacy_planar.parser.transition.driver import beam_parse, greedy_parse
from spacy_planar.parser.transition.kbest import arc_confidence, calibrated, distinct_parses
from spacy_planar.parser.systems import TransitionSystem
from spacy_planar.parser.systems.state import INT

_BLAS = None


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread: the parse loop's
    products are small (states x hidden by hidden x actions), and BLAS's
    thread per core costs more to start and fights other processes than it
    saves (docs/decisions.md, 2026-11-25); spaCy's parser stays on one
    thread too. No effect where numpy has no BLAS threads (or on a GPU)."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def parse_docs(system: TransitionSystem, scorer, ops, docs: List[Doc], found: List[Unit], settings
               ) -> List[List[Parsed]]:
    """The parse (``Parsed``) of each unit ``found`` of ``docs``, per Doc, scored by ``scorer``
    (the model's ``StateScorer`` over the Docs' tokens) with the component's ``settings``
    (``settings.ParserSettings``). Whitespace tokens are not parsed
    (``with_whitespace``); the loop keeps BLAS on one thread."""
    out: List[List] = [[] for _ in docs]
    words, rows, kept = unit_words(docs, found)
    if kept is not None:  # the parse reads the other words only
        scorer = scorer.restricted(kept)
    score = lambda *x: ops.to_numpy(scorer(*x))  # noqa: E731
    with one_blas_thread():
        if kept is None:
            parse_units(system, score, docs, found, out, settings)
            return out
        parsed: List[List] = [[] for _ in docs]
        units_read = [(k, row, row + len(w)) for (k, _, _), w, row in zip(found, words, rows) if len(w)]
        tokens = {(k, row): s + w for (k, s, _), w, row in zip(found, words, rows) if len(w)}
        parse_units(system, score, docs, units_read, parsed, settings, starts=np.zeros(len(docs), dtype=INT),
                    tokens=tokens)
        # each unit's parse by its first row: parse_units returns a Doc's units in its batches' order (by length)
        by_row = {(k, unit.span[0]): unit for k, doc_trees in enumerate(parsed) for unit in doc_trees}
        for (k, s, e), w, row in zip(found, words, rows):
            unit = by_row[k, row] if len(w) else Parsed((s, e), ([], []))
            spaced_tree = lambda t: with_whitespace(t, w, e - s, settings.extra_root_label, settings.root_label)  # noqa
            finals = None if unit.finals is None else [(total, spaced_tree(t), spaced_scores(local, w, e - s))
                                                        for total, t, local in unit.finals]
            out[k].append(Parsed((s, e), spaced_tree(unit.tree), finals, unit.fell_out))
    return out


def parse_units(system: TransitionSystem, score: Callable, docs: List[Doc], found: List[Unit], out: List,
                settings, starts: Optional[np.ndarray] = None,
                tokens: Optional[Dict] = None) -> None:
    """Parse the units ``found`` ((Doc, start, end)) of ``docs`` in batches
    of similar length, their trees into ``out`` (one list per Doc, each
    unit's ((start, end), tree, its beam's final states as (total, tree, the
    words' move log-probabilities; ``driver.beam_parse``), or None where
    ``n_best`` is 1)); the scorer's rows of a Doc's tokens begin at ``starts`` (default: the Docs'
    tokens one after another). With ``tokens`` the units are rows of the
    scorer, ``tokens[Doc, start]`` naming their tokens in the Doc;
    A unit that fell out of its beam is parsed greedily and marked (``Parsed.fell_out``)."""
    doc_start = np.cumsum([0] + [len(d) for d in docs]) if starts is None else starts
    width = settings.beam_width
    # top-down's FIRST lookahead reads the words' UPOS where an earlier component set them
    use_tags = system.wants_tags()
    has_pos = [use_tags and doc.has_annotation("POS") for doc in docs]
    # about 2048 states a step: fewer sentences to a batch with a beam (less padding too)
    for idx in batches([e - s for _, s, e in found], max(2048 // width, 64)):
        group = [found[i] for i in idx]
        lengths = [e - s for _, s, e in group]
        offsets = np.array([doc_start[k] + s for k, s, _ in group], dtype=INT)
        tags = None
        if use_tags:  # "" where a Doc has no POS: restricts nothing
            tags = [[docs[k][int(i)].pos_ for i in (range(s, e) if tokens is None else tokens[k, s])]
                    if has_pos[k] else [""] * (e - s) for k, s, e in group]
        finals = [] if settings.keeps_finals else None
        lost: List[int] = []
        if width > 1:
            trees = beam_parse(system, score, lengths, offsets, width, density=settings.beam_density,
                               merge=settings.beam_merge, finish=settings.single_root, tags=tags, finals=finals,
                               lost=lost)
        else:  # with ``head_probs``, the moves' log-probabilities too: the one final state a beam of 1 has
            moves = None if finals is None else []
            trees = greedy_parse(system, score, lengths, offsets, finish=settings.single_root, tags=tags,
                                 move_logp=moves)
            if finals is not None:
                finals.extend([(float(sum(local)), tree, local)] for tree, local in zip(trees, moves))
        for i, ((k, s, e), tree) in enumerate(zip(group, trees)):
            out[k].append(Parsed((s, e), tree, None if finals is None else finals[i], i in lost))


def spaced_scores(local: List[float], words: np.ndarray, n: int) -> List[float]:
    """Per token of a unit of ``n`` tokens the words' move log-probabilities
    (``words``: their positions), 0.0 for the whitespace tokens, which
    ``with_whitespace`` attaches by rule."""
    out = np.zeros(n)
    out[np.asarray(words, dtype=INT)] = local
    return out.tolist()


def unit_parses(predictions: List[List], out, temperature: float) -> List[Tuple]:
    """Per unit, in ``codec.TreeCodec.output_trees``' order (``out``, its answer): (its Doc, its
    span, its distinct parses as (probability at ``temperature``, heads, labels), best first, and
    per token the log-probability of the move that gave it its head in the best tree's best
    derivation). A repaired tree takes the first place; its moves are not its tree's (none: 0.0)."""
    where = [(k, span) for k, doc_units in enumerate(predictions) for span, *_ in sorted(doc_units, key=lambda u: u[0])]
    bounds = np.cumsum([0] + list(out.lengths))
    found = []
    for u, ((k, (s, e)), finals) in enumerate(zip(where, out.alternatives)):
        best = (out.heads[bounds[u]:bounds[u + 1]].tolist(), out.labels[bounds[u]:bounds[u + 1]])
        parses = distinct_parses(finals or [(0.0, best)], temperature)  # never empty
        if (parses[0][1], parses[0][2]) != best:  # a repaired tree (never expected) takes the beam's first place
            parses = [(parses[0][0], *best)] + [p for p in parses[1:] if (p[1], p[2]) != best]
        derivations = [(total, local) for total, tree, local in finals or [] if (list(tree[0]), list(tree[1])) == best]
        move_logp = max(derivations, default=(0.0, [0.0] * (e - s)), key=lambda f: f[0])[1]
        found.append((k, (s, e), parses, move_logp))
    return found


def set_parses(docs: List[Doc], parses: List[Tuple], n_best: int, calibration: Dict) -> None:
    """Each unit's ``n_best`` most probable distinct parses (none kept where ``n_best`` is 1),
    each word's arc probability (``kbest.py``: its confidence at the ``calibration``'s
    temperature, through its map) and the log-probability of the move that
    gave it its head, into its Doc's ``user_data`` (``shared/extensions.py``); ``parses``:
    ``unit_parses``' answer."""
    for doc in docs:
        if n_best > 1:
            doc.user_data[PARSES_KEY] = []
        else:
            doc.user_data.pop(PARSES_KEY, None)
        doc.user_data[HEAD_PROBS_KEY] = [None] * len(doc)
        doc.user_data[MOVE_LOGP_KEY] = [None] * len(doc)
    for k, (s, e), alts, move_logp in parses:
        if n_best > 1:
            docs[k].user_data[PARSES_KEY].append(
                (s, e, [{"prob": p, "heads": h, "labels": l} for p, h, l in alts[:n_best]]))
        probs = calibrated(arc_confidence(alts, alts[0][1], alts[0][2], move_logp), calibration)
        docs[k].user_data[HEAD_PROBS_KEY][s:e] = probs.round(HEAD_PROB_DECIMALS).tolist()
        docs[k].user_data[MOVE_LOGP_KEY][s:e] = np.round(move_logp, 4).tolist()
