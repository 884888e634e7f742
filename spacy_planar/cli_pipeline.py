"""Commands that run trained pipelines: ``parse``, ``train`` (timed), ``compare``, ``stacks``."""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import typer

from .cli import app, fail, msg
from .conllu_io import Sentence, atomic_output, doc_to_conllu, read_conllu, sentences_to_doc
from .errors import ConlluError
from .metrics import LENGTH_BINS, Scores

TRAIN_SECONDS = "train_seconds.json"


def input_docs(nlp, sents: List[Sentence]) -> List:
    """Docs of the gold words only (no gold annotation), for a pipeline to parse."""
    from spacy.tokens import Doc

    docs = []
    for s in sents:
        spaces = list(s.space_after)
        for first, last, _ in s.ranges:
            for i in range(first, last):
                spaces[i] = True
        docs.append(Doc(nlp.vocab, words=s.forms, spaces=spaces))
    return docs


def ud_tree(doc) -> tuple:
    """(heads, labels) of a parsed Doc in UD terms: HEAD 0 for roots, and
    spaCy's own root label ``ROOT`` (its parser's, whatever the data said)
    written as UD's ``root``."""
    heads = [0 if t.head.i == t.i else t.head.i + 1 for t in doc]
    labels = ["root" if h == 0 and t.dep_ == "ROOT" else t.dep_ for h, t in zip(heads, doc)]
    return heads, labels


def parse_sentences(nlp, sents: List[Sentence], batch_size: int = 1000) -> List:
    return list(nlp.pipe(input_docs(nlp, sents), batch_size=batch_size))


def write_parsed(nlp, sents: List[Sentence], parsed: List, path: Path) -> None:
    """The input's lines with HEAD and DEPREL from the parsed Docs."""
    from spacy.tokens import Doc

    with atomic_output(path) as f:
        for sent, doc in zip(sents, parsed):
            heads, labels = ud_tree(doc)
            gold = sentences_to_doc(nlp.vocab, [sent])
            out = Doc(nlp.vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold],
                      lemmas=[t.lemma_ for t in gold], pos=[t.pos_ for t in gold], tags=[t.tag_ for t in gold],
                      morphs=[str(t.morph) for t in gold], deps=labels,
                      heads=[i if h == 0 else h - 1 for i, h in enumerate(heads)])
            out.user_data.update(gold.user_data)
            f.write(doc_to_conllu(out))


@app.command()
def parse(
    model: str = typer.Argument(..., help="A trained spaCy pipeline (path or package)"),
    input_path: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U"),
    output_path: Path = typer.Argument(..., help="CoNLL-U with predicted HEAD and DEPREL"),
    batch_size: int = typer.Option(1000, "--batch-size", "-b"),
) -> None:
    """Parse gold-tokenised CoNLL-U with any pipeline (ours or spaCy's parser)."""
    import spacy

    try:
        sents = list(read_conllu(input_path))
        nlp = spacy.load(model)
        start = time.perf_counter()
        parsed = parse_sentences(nlp, sents, batch_size)
        seconds = time.perf_counter() - start
        write_parsed(nlp, sents, parsed, output_path)
    except (ConlluError, FileNotFoundError, OSError, ValueError) as e:
        fail(str(e))
    words = sum(len(s) for s in sents)
    msg.good(f"Parsed {len(sents)} sentences, {words} words in {seconds:.1f} s "
             f"({words / max(seconds, 1e-9):,.0f} words/s): {output_path}")


class EndOfBuffer:
    """A parse observer (``PlanarParser.observer``): the words on the active
    stack when each sentence's buffer first empties, and the moves made
    after that. A greedy parser that shifts where it should attach reaches
    the end of the buffer with fuller stacks, and must then sort them out
    (swap: SWAP back and forth; the systems that stop at the end of the
    buffer leave the words without a head as roots, or UNSHIFT them under
    the tree constraint)."""

    def __init__(self):
        from .systems.state import MOVE_NAMES

        self.move_names = MOVE_NAMES
        self.first: Dict[int, int] = {}  # unit (token offset) -> stack size
        self.moves: Dict[str, int] = {}

    def __call__(self, system, st, actions, offsets) -> None:
        for r in np.flatnonzero(actions >= 0).tolist():
            unit = int(offsets[r])
            if unit in self.first:
                move = self.move_names[int(system.table.move_of[actions[r]])]
                self.moves[move] = self.moves.get(move, 0) + 1
            elif st.bp[r] == 0:
                self.first[unit] = int(st.sp[r, st.active[r]])

    def summary(self, top: int = 8) -> Dict:
        sizes = np.array(list(self.first.values()), dtype=np.int64)
        counts = np.bincount(np.minimum(sizes, top), minlength=top + 1) if len(sizes) else np.zeros(top + 1, int)
        return {"sentences": len(sizes), "mean_stack": float(sizes.mean()) if len(sizes) else 0.0,
                "stack_sizes": {(f"{k}+" if k == top else str(k)): int(c) for k, c in enumerate(counts.tolist()) if c},
                "moves_after": dict(sorted(self.moves.items()))}


@app.command()
def stacks(
    model: str = typer.Argument(..., help="A trained pipeline with a planar_parser"),
    gold: Path = typer.Argument(..., help="Gold-tokenised CoNLL-U (its words are parsed)"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """How full the stack is when the buffer empties: parse the words of
    ``gold`` and report, over the sentences, the words on the active stack
    (the root too where the system keeps it there) when the buffer first
    empties, and the moves made after that."""
    import spacy

    from .pipeline import PlanarParser

    try:
        sents = list(read_conllu(gold))
        nlp = spacy.load(model)
    except (ConlluError, FileNotFoundError, OSError, ValueError) as e:
        fail(str(e))
    pipes = [p for _, p in nlp.pipeline if isinstance(p, PlanarParser)]
    if not pipes:
        fail(f"{model}: no planar_parser in the pipeline ({', '.join(nlp.pipe_names)})")
    observer = EndOfBuffer()
    pipes[0].observer = observer
    parse_sentences(nlp, sents, batch_size=max(len(sents), 1))  # one batch: a unit's offset names it
    res = observer.summary()
    if as_json:
        print(json.dumps(res, indent=2))
        return
    msg.info(f"{res['sentences']} sentences; words on the stack when the buffer first empties: "
             f"mean {res['mean_stack']:.2f}")
    msg.table(list(res["stack_sizes"].items()), header=("stack size", "sentences"))
    msg.table(list(res["moves_after"].items()), header=("move after the buffer emptied", "count"))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def train(
    ctx: typer.Context,
    config_path: Path = typer.Argument(..., help="A training config"),
    output_path: Path = typer.Option(..., "--output", "-o", help="Output directory"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g", help="GPU id, or -1 for the CPU"),
) -> None:
    """``spacy train`` as it is, also writing the wall time of the training
    to OUTPUT/train_seconds.json (for ``compare``). Extra options are config
    overrides, as for spacy train (--paths.train ...)."""
    from spacy.cli._util import parse_config_overrides, setup_gpu
    from spacy.cli.train import train as spacy_train

    overrides = parse_config_overrides(ctx.args)
    setup_gpu(gpu_id)
    start = time.perf_counter()
    spacy_train(config_path, output_path, overrides=overrides)
    seconds = time.perf_counter() - start
    (Path(output_path) / TRAIN_SECONDS).write_text(json.dumps({"seconds": seconds}), encoding="utf-8")


def score_pipeline(model_dir: Path, gold: Path, batch_size: int = 1000, repeats: int = 1) -> Dict:
    """Parse ``gold``'s words with a pipeline; metrics and parse speed."""
    import spacy

    nlp = spacy.load(model_dir)
    sents = list(read_conllu(gold))
    best = float("inf")
    parsed = []
    for _ in range(repeats):
        docs = input_docs(nlp, sents)
        start = time.perf_counter()
        parsed = list(nlp.pipe(docs, batch_size=batch_size))
        best = min(best, time.perf_counter() - start)
    scores = Scores()
    for s, doc in zip(sents, parsed):
        scores.add((s.heads, s.deprels), ud_tree(doc))
    res = scores.as_dict()
    res["by_length"] = scores.by_length()
    res["long_arcs"] = scores.long_arcs()
    res["words_per_s"] = sum(len(s) for s in sents) / best
    timing = Path(model_dir).parent / TRAIN_SECONDS
    res["train_seconds"] = json.loads(timing.read_text())["seconds"] if timing.exists() else None
    return res


def length_table(runs: Dict[str, List[Dict]]) -> str:
    """UAS / LAS by gold arc length, one row per NAME (the mean of its runs)."""
    first = next(iter(runs.values()))[0]["by_length"]
    lines = ["UAS / LAS over the gold arcs of each length |head - dependent|:", "",
             "| system | " + " | ".join(LENGTH_BINS) + " |", "|" + "---|" * (len(LENGTH_BINS) + 1),
             "| gold arcs | " + " | ".join(f"{first[b]['arcs']:,}" for b in LENGTH_BINS) + " |"]
    for name, rs in runs.items():
        cells = [" / ".join(f"{statistics.mean(x['by_length'][b][k] for x in rs):.1f}" for k in ("UAS", "LAS"))
                 for b in LENGTH_BINS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def long_arc_table(runs: Dict[str, List[Dict]], top: int = 8) -> str:
    """UAS over the long gold arcs (7+) of the ``top`` most frequent kinds
    (gold label, side of the head) of the first NAME's first run, one row per
    NAME (the mean of its runs)."""
    kinds = list(next(iter(runs.values()))[0]["long_arcs"].items())[:top]
    lines = [f"UAS over the gold arcs of {LENGTH_BINS[-1]} words, by gold label and side of the head "
             "(the most frequent kinds):", "",
             "| system | " + " | ".join(k for k, _ in kinds) + " |", "|" + "---|" * (len(kinds) + 1),
             "| gold arcs | " + " | ".join(f"{v['arcs']:,}" for _, v in kinds) + " |"]
    for name, rs in runs.items():
        cells = [f"{statistics.mean(x['long_arcs'][k]['UAS'] for x in rs):.1f}" for k, _ in kinds]  # one gold: same kinds
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


@app.command()
def compare(
    gold: Path = typer.Argument(..., help="Gold CoNLL-U (the test split)"),
    models: List[str] = typer.Argument(..., help="NAME=PIPELINE_DIR pairs"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the markdown table here"),
    repeats: int = typer.Option(3, "--repeats", "-r", help="Parse repeats (speed: best)"),
    by_length: bool = typer.Option(False, "--by-length", help="Also tables of UAS / LAS by gold arc length, "
                                   "and of UAS over the long arcs by gold label"),
) -> None:
    """A markdown table of trained pipelines on one treebank: UAS, LAS, exact
    match, non-projective P/R/F, training time, parse speed. A NAME given
    several times (runs with different seeds) gets one row: the mean of its
    runs, with the standard deviation of UAS and LAS. ``--by-length``: a second
    table, UAS / LAS over the gold arcs of each length (the roots apart), and
    a third, UAS over the long arcs (7+) of the most frequent kinds (gold label
    and side of the head)."""
    runs: Dict[str, List[Dict]] = {}
    for item in models:
        name, _, path = item.partition("=")
        if not path:
            fail(f"expected NAME=PIPELINE_DIR, got '{item}'")
        try:
            runs.setdefault(name, []).append(score_pipeline(Path(path), gold, repeats=repeats))
        except (ConlluError, FileNotFoundError, OSError, ValueError) as e:
            fail(str(e))
    several = any(len(rs) > 1 for rs in runs.values())
    header = "| system | UAS | LAS | EM_U | EM_L | NP P (U) | NP R (U) | NP F (U) | NP F (L) | train s | parse words/s |"
    lines = [f"Test: `{gold}` (all words, punctuation included)"
             + ("; rows of several runs: mean ± standard deviation over the runs" if several else ""),
             "", header, "|" + "---|" * 11]
    for name, rs in runs.items():
        r = {k: statistics.mean(x[k] for x in rs) for k, v in rs[0].items()
             if k != "train_seconds" and not isinstance(v, dict)}  # the breakdowns have tables of their own
        sd = {k: statistics.stdev(x[k] for x in rs) if len(rs) > 1 else None for k in ("UAS", "LAS")}
        times = [x["train_seconds"] for x in rs if x["train_seconds"] is not None]
        train_s = f"{statistics.mean(times):.0f}" if times else "-"
        uas, las = ((f"{r[k]:.2f}" + (f" ± {sd[k]:.2f}" if sd[k] is not None else "")) for k in ("UAS", "LAS"))
        label = name + (f" ({len(rs)} runs)" if len(rs) > 1 else "")
        lines.append(f"| {label} | {uas} | {las} | {r['EM_U']:.2f} | {r['EM_L']:.2f} | "
                     f"{r['NP_P_U']:.1f} | {r['NP_R_U']:.1f} | {r['NP_F_U']:.1f} | {r['NP_F_L']:.1f} | "
                     f"{train_s} | {r['words_per_s']:,.0f} |")
    if by_length:
        lines += ["", length_table(runs), "", long_arc_table(runs)]
    table = "\n".join(lines) + "\n"
    if output is not None:
        with atomic_output(output) as f:
            f.write(table)
    print(table)
