"""``spacy-planar lab bench memory``: the peak memory of ``parse-corpus`` as the corpus grows
(issue 89). For each size, a corpus of generated text (sentences of a CoNLL-U's words, one a line,
a share of the words made new forms, so that every cache keyed by form meets unseen ones as a
real corpus's long tail does) in ``--files`` files is parsed by ``spacy-planar parse-corpus`` in a
process of its own, whose peak resident memory (``wait4``'s ``ru_maxrss``) is the figure. Flat
across sizes is what bounded caches give; growth with the corpus is a leak."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

import typer

from spacy_planar.cli._app import flag, msg
from spacy_planar.io.conllu import read_conllu
from spacy_planar.io.pipelines import pipeline_path
from spacy_planar_lab._app import bench_app


def generated_corpus(sentences: List[List[str]], words: int, files: int, new_forms: float, folder: Path,
                     seed: int = 0) -> int:
    """``files`` text files in ``folder`` of about ``words`` words in all, none empty: ``sentences``
    drawn at random, one a line, each word made a new form (its text and a number never used before) with
    probability ``new_forms``. Returns the words written."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    written, fresh = 0, 0
    for f in range(files):
        lines, in_file = [], 0
        share = -(-(words - written) // (files - f))  # what is left, shared by the files left
        while not lines or (in_file < share and written < words):  # a sentence at least in each
            sentence = []
            for w in rng.choice(sentences):
                if rng.random() < new_forms:
                    fresh += 1
                    w = f"{w}{fresh}"
                sentence.append(w)
            lines.append(" ".join(sentence))
            in_file += len(sentence)
            written += len(sentence)
        (folder / f"part{f:03d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return written


def peak_of(command: List[str]) -> Dict[str, float]:
    """Run ``command``; its seconds and peak resident memory in MB (Linux's ``ru_maxrss``, KB)."""
    t = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {process.stderr.read().decode()[-2000:]}")
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024}


@bench_app.command("memory")
def bench_memory(
    model: str = typer.Argument(..., help="A trained pipeline"),
    conllu: Path = typer.Argument(..., help="A CoNLL-U whose sentences' words the corpus is made of"),
    words: List[int] = typer.Option([100_000, 300_000, 1_000_000], "--words", help="Corpus sizes; repeatable"),
    files: int = typer.Option(20, "--files", help="Files a corpus is written in"),
    new_forms: float = typer.Option(0.3, "--new-forms", help="Share of the words made forms never seen before"),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", "-b", help="parse-corpus's --batch-size"),
    as_json: bool = flag(False, "--json"),
) -> None:
    """Peak memory of parse-corpus over generated corpora of growing size (the module's text)."""
    pipeline_path(model)  # one line (E107, E116) where it names no pipeline, before a corpus is made
    sentences = [s.forms for s in read_conllu(conllu)]
    rows: Dict[str, Dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in words:
            folder = Path(tmp) / f"in{n}"
            written = generated_corpus(sentences, n, files, new_forms, folder)
            out = Path(tmp) / f"out{n}"
            command = [sys.executable, "-m", "spacy_planar", "parse-corpus", model, str(folder), str(out)]
            row = peak_of(command + (["--batch-size", str(batch_size)] if batch_size else []))
            rows[f"{written:,} words"] = {"words": written, **row, "words_per_s": written / row["seconds"]}
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    msg.table([(k, f"{r['peak_mb']:,.0f}", f"{r['seconds']:.1f}", f"{r['words_per_s']:,.0f}") for k, r in rows.items()],
              header=("corpus", "peak MB", "seconds", "words/s"), aligns=("l", "r", "r", "r"),
              title=f"parse-corpus {model}: peak memory, {new_forms:.0%} new forms")
