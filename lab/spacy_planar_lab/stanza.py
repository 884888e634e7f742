"""Stanza trained on the same sentences (``lab stanza``): the leader of the field as it is built,
beside UDPipe 1 (``anchors.py``). Stanza's own training scripts, run as a user runs them: its tagger
(UPOS, XPOS, FEATS), then its biaffine parser on the gold tags with the tagger's tags on dev, each
with its own defaults (Stanza 1.15: the parser's 3 layers of 400 units each way, adadelta then Adam,
batches of 5,000 words, an evaluation every 100 steps, 2,000 steps of patience); ``--steps`` caps
both where its default run (up to 50,000 steps) is hours on a CPU. Each evaluation's dev score is
kept in OUT/curve.tsv (the step budget stated beside its curve). Stanza runs in ``--python`` (by
default this one), so that its torch need not live beside spaCy."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from spacy_planar.cli._app import msg
from spacy_planar_lab._app import lab_app
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import atomic_output, check_input, read_conllu

# what Stanza's trainers log at each evaluation ("step 100: train_loss = ..., dev_score = 0.5123")
DEV_SCORE = re.compile(r"step (\d+): train_loss = ([0-9.]+), dev_score = ([0-9.]+)")
# what they log at the end of a training ("Training ended with 200 steps.")
ENDED = re.compile(r"Training ended with (\d+) steps")


@lab_app.command("stanza")
def stanza(
    train: Path = typer.Argument(..., help="Training CoNLL-U"),
    dev: Path = typer.Argument(..., help="Held-out CoNLL-U (Stanza's early stopping)"),
    out: Path = typer.Argument(..., help="A folder for the models, logs, curves and parsed files"),
    evaluate: List[Path] = typer.Argument(..., help="CoNLL-U files whose words Stanza tags and parses"),
    steps: Optional[int] = typer.Option(None, "--steps", help="At most this many training steps for the parser "
                                        "(default: Stanza's own, 50,000)"),
    tagger_steps: Optional[int] = typer.Option(None, "--tagger-steps", help="At most this many for the tagger "
                                               "(default: --steps)"),
    vectors: Optional[Path] = typer.Option(None, "--vectors", help="A spaCy vectors folder (spacy-planar vectors): "
                                           "Stanza's pretrain of the words of TRAIN, DEV and EVALUATE"),
    lang: str = typer.Option("xx", "--lang", "-l", help="The treebank's language code (Stanza's --lang)"),
    python: Path = typer.Option(Path(sys.executable), "--python", help="A Python with stanza installed"),
    seed: int = typer.Option(1234, "--seed", help="Stanza's seed"),
    threads: Optional[int] = typer.Option(None, "--threads", help="torch's threads (default: torch's own)"),
) -> None:
    """Stanza's tagger and parser trained on the same sentences (the anchor).

    Trains Stanza's tagger and its parser (Qi et al. 2018; Dozat & Manning
    2017) on TRAIN with DEV held out, on the gold words, with its default
    options, without pretrained vectors unless --vectors gives ours; writes
    OUT/<name> for each EVALUATE file, tagged and parsed on its gold words:
    score them with `spacy-planar evaluate`. Hours for 1,000 sentences on
    a CPU at Stanza's step count; --steps caps it (OUT/curve.tsv). A rerun
    into the same OUT keeps a tagger or parser trained there to its budget;
    with a larger --steps Stanza goes on from its checkpoint there."""
    for path in [train, dev, *evaluate]:
        check_input(path)
        next(iter(read_conllu(path)), None)  # a file that is not CoNLL-U: one line, before hours of training
    if subprocess.run([str(python), "-c", "import stanza"], capture_output=True).returncode:
        raise UserError(Errors.E152.format(python=python))
    out.mkdir(parents=True, exist_ok=True)
    common = ["--lang", lang, "--shorthand", f"{lang}_x", "--save_dir", str(out), "--seed", str(seed), "--cpu"]
    if vectors is not None:
        common += ["--wordvec_file", str(pretrain_text(vectors, [train, dev, *evaluate], out / "vectors.txt")),
                   "--wordvec_pretrain_file", str(out / "pretrain.pt")]
    else:
        common += ["--no_pretrain"]
    tagger_steps = tagger_steps or steps
    budget, tagger_budget = step_budget(steps), step_budget(tagger_steps)
    env = dict(os.environ, **({"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)} if threads else {}))
    start = time.perf_counter()
    tagged_dev = out / "dev.tagged.conllu"
    if not trained(out, "tagger", tagger_steps):  # a rerun keeps a model trained to its budget
        run_stanza(python, "tagger", ["--mode", "train", "--train_file", str(train), "--eval_file", str(dev),
                                      "--output_file", str(tagged_dev), *tagger_budget, *common], out, env)
    run_stanza(python, "tagger", ["--mode", "predict", "--eval_file", str(dev), "--output_file", str(tagged_dev),
                                  *common], out, env)
    if not trained(out, "parser", steps):  # a larger budget goes on from Stanza's checkpoint
        run_stanza(python, "parser", ["--mode", "train", "--train_file", str(train), "--eval_file", str(tagged_dev),
                                      "--output_file", str(out / "dev.parsed.conllu"), *budget, *common], out, env)
    for path in evaluate:  # its words only: Stanza tags them, then parses
        words, tagged = words_only(path, out / f"{path.stem}.words.conllu"), out / f"{path.stem}.tagged.conllu"
        run_stanza(python, "tagger", ["--mode", "predict", "--eval_file", str(words), "--output_file", str(tagged),
                                      "--no_gold_labels", *common], out, env)
        run_stanza(python, "parser", ["--mode", "predict", "--eval_file", str(tagged), "--output_file",
                                      str(out / path.name), "--no_gold_labels", *common], out, env)
    write_curves(out)
    msg.good(f"Stanza trained and parsed in {time.perf_counter() - start:.0f} s: {out} (curves: {out / 'curve.tsv'})")


def trained(out: Path, model: str, steps: Optional[int]) -> bool:
    """Whether OUT/MODEL.log records a training of Stanza's that ran to its end and, where a budget
    is given, to at least ``steps`` steps. Stanza goes on from its checkpoint in OUT where it is
    run again (a rerun with a larger budget continues the curve; the log is appended to)."""
    log = out / f"{model}.log"
    ended = [int(n) for n in ENDED.findall(log.read_text(encoding="utf-8"))] if log.exists() else []
    return bool(ended) and (steps is None or max(ended) >= steps)


def step_budget(steps: Optional[int]) -> List[str]:
    """Stanza's options for at most ``steps`` steps; a budget under its evaluation interval (100)
    evaluates at its end (Stanza 1.15 fails where it never evaluated)."""
    return ["--max_steps", str(steps), "--eval_interval", str(min(steps, 100))] if steps else []


def run_stanza(python: Path, model: str, args: List[str], out: Path, env: dict) -> None:
    """``python -m stanza.models.MODEL ARGS``, its output appended to OUT/MODEL.log (E153 where it fails)."""
    log = out / f"{model}.log"
    with log.open("a", encoding="utf-8") as f:
        f.write(f"$ {python} -m stanza.models.{model} {' '.join(args)}\n")
        f.flush()
        code = subprocess.run([str(python), "-m", f"stanza.models.{model}", *args], stdout=f,
                              stderr=subprocess.STDOUT, env=env).returncode
    if code:
        raise UserError(Errors.E153.format(step=f"{model} ({args[1]})", code=code, log=log))


def words_only(path: Path, out: Path) -> Path:
    """A CoNLL-U file with its words' ID and FORM (and multiword tokens' lines) only: what Stanza
    is given to tag and parse, so that nothing of the gold annotation reaches its output (its
    LEMMA stays empty: no lemmatizer is trained)."""
    with atomic_output(out) as f:
        for line in path.read_text(encoding="utf-8").splitlines():
            cols = line.split("\t")
            if len(cols) == 10 and not line.startswith("#"):
                line = "\t".join(cols[:2] + ["_"] * 8)
            f.write(line + "\n")
    return out


def write_curves(out: Path) -> None:
    """OUT/curve.tsv: model, step, train loss, dev score at each of Stanza's evaluations."""
    with atomic_output(out / "curve.tsv") as f:
        f.write("model\tstep\ttrain_loss\tdev_score\n")
        for model in ("tagger", "parser"):
            log = out / f"{model}.log"
            for step, loss, score in DEV_SCORE.findall(log.read_text(encoding="utf-8") if log.exists() else ""):
                f.write(f"{model}\t{step}\t{loss}\t{score}\n")


def pretrain_text(vectors: Path, files: List[Path], path: Path) -> Path:
    """The vectors of the words of ``files`` from a spaCy vectors folder (floret's too: each
    word's vector from its subwords), in the word2vec text format that Stanza's pretrain reads."""
    import spacy

    nlp = spacy.blank("xx")
    nlp.vocab.vectors.from_disk(vectors)
    words = sorted({form for f in files for sentence in read_conllu(f) for form in sentence.forms})
    with atomic_output(path) as f:
        f.write(f"{len(words)} {nlp.vocab.vectors.shape[1]}\n")
        for word in words:
            f.write(word.replace(" ", "_") + " " + " ".join(f"{x:.5f}" for x in nlp.vocab.get_vector(word)) + "\n")
    return path
