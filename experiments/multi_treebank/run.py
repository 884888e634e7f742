#!/usr/bin/env python3
"""One lab run: train (optionally several treebanks, then fine-tune on the target), parse dev (and test), score.

run.py ARM TARGET SEED [--others a,b] [--ft K] [--cfg CFG] [--epochs N] [--test] [-- overrides...]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

# the lab's folder (its runs, corpora, vectors), the command that trains, and the treebanks: from the environment
LAB = Path(os.environ.get("SPACY_PLANAR_LAB", "lab"))
BIN = os.environ.get("SPACY_PLANAR_BIN", "spacy-planar")
UD = Path(os.environ.get("SPACY_PLANAR_DATA", Path(__file__).resolve().parents[3] / "shared" / "data" / "ud"))
VEC = {"la": LAB / "vec_la", "grc": LAB / "vec_grc"}
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")


def sh(args, log):
    with open(log, "a") as f:
        f.write("$ " + " ".join(map(str, args)) + "\n")
        f.flush()
        r = subprocess.run(list(map(str, args)), stdout=f, stderr=subprocess.STDOUT, env=ENV)
    if r.returncode:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, args))}; see {log}")


def corpus(tb, split):
    return LAB / "corpus" / tb / f"{split}.spacy"


def gold(tb, split):
    p = LAB / "data" / tb / f"{split}.conllu"
    return p if p.exists() else UD / tb / f"{split}.conllu"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("arm")
    ap.add_argument("target")
    ap.add_argument("seed", type=int)
    ap.add_argument("--others", default="")
    ap.add_argument("--ft", type=int, default=0)
    ap.add_argument("--cfg", default=str(Path(__file__).resolve().parents[2] / "configs" / "ud_accurate.cfg"))
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--novec", action="store_true")
    ap.add_argument("--test", action="store_true")
    ap.add_argument("--teachers", default="", help="distil: the arm whose seeds 0-2 teach")
    ap.add_argument("--weight", type=float, default=1.0)
    ap.add_argument("--bin", default=BIN)
    a, rest = ap.parse_known_args()
    a.rest = [x for x in rest if x != "--"]
    out = LAB / "runs" / a.arm / a.target / f"s{a.seed}"
    out.mkdir(parents=True, exist_ok=True)
    log = out / "log.txt"
    lang = a.target.split("_")[0]
    vec = [] if a.novec or lang not in VEC else ["--paths.vectors", VEC[lang], "--nlp.lang", lang]
    while vec and not (Path(vec[1]) / "meta.json").exists():
        time.sleep(30)
    trains = [corpus(a.target, "train")] + [corpus(o, "train") for o in a.others.split(",") if o]
    t0 = time.time()
    if not (out / "model-best").exists() and a.teachers:
        args = [a.bin, "distill", "--output", out, "--teacher-weight", a.weight, "--paths.dev", corpus(a.target, "dev"),
                "--training.max_epochs", a.epochs, "--system.seed", a.seed, *vec, *a.rest]
        for s in range(3):
            args += ["--teacher", LAB / "runs" / a.teachers / a.target / f"s{s}" / "model-best"]
        for t in trains:
            args += ["--paths.train", t]
        sh(args, log)
    if not (out / "model-best").exists():
        args = [a.bin, "train", a.cfg, "--output", out, "--paths.dev", corpus(a.target, "dev"),
                "--training.max_epochs", a.epochs, "--system.seed", a.seed, *vec, *a.rest]
        for t in trains:
            args += ["--paths.train", t]
        sh(args, log)
    t1 = time.time()
    models = [("", out / "model-best")]
    if a.ft:
        models.append((".ft", target_stage(out, "ft", a.target, a.ft, a.seed, vec, log)))
    t2 = time.time()
    for suffix, path in models:
        result = {"arm": a.arm + suffix.replace(".", "+"), "target": a.target, "seed": a.seed, "train_s": t1 - t0,
                  "ft_s": t2 - t1 if suffix else 0}
        for split in ["dev"] + (["test"] if a.test else []):
            result[split] = parse_and_score(path, a.target, split, out / f"{split}{suffix}", log)
        (out / f"result{suffix}.json").write_text(json.dumps(result, indent=1))
        print(result["arm"], a.target, a.seed, result["dev"]["official"]["LAS"], f"{time.time() - t0:.0f}s")


def target_stage(out: Path, name: str, target: str, epochs, seed, vec, log, overrides=()) -> Path:
    """``epochs`` epochs on the target alone from out/model-best into out/name (kept if there): its model-best."""
    model = out / name / "model-best"
    if not model.exists():
        cfg = finetune_config(out / "model-best", out / f"{name}.cfg")
        sh([BIN, "train", cfg, "--output", out / name, "--paths.train", corpus(target, "train"), "--paths.dev",
            corpus(target, "dev"), "--training.max_epochs", epochs, "--system.seed", seed, *vec, *overrides], log)
    return model


def parse_and_score(model: Path, target: str, split: str, stem: Path, log) -> dict:
    """The split parsed by ``model`` into STEM.conllu, scored by the CoNLL 2018 scorer into STEM.json (kept if
    there): the scores."""
    pred, js = stem.with_name(stem.name + ".conllu"), stem.with_name(stem.name + ".json")
    if not js.exists():
        sh([BIN, "parse", model, gold(target, split), pred], log)
        with open(js, "w") as f:
            subprocess.run([BIN, "evaluate", gold(target, split), pred, "--json"], stdout=f, env=ENV, check=True)
    return json.loads(js.read_text())


def finetune_config(model: Path, path: Path) -> Path:
    """The first stage's config with every component sourced from its model-best."""
    from thinc.api import Config

    cfg = Config().from_disk(model / "config.cfg", interpolate=False)
    for name in cfg["nlp"]["pipeline"]:
        cfg["components"][name] = {"source": str(model.resolve())}
    cfg["paths"]["treebanks"] = None
    cfg.to_disk(path)
    return path


if __name__ == "__main__":
    main()
