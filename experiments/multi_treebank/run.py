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

LAB = Path("/work/lab")
BIN = "/work/lab/venv/bin/spacy-planar"
UD = Path("/work/shared/data/ud")
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
    ap.add_argument("--cfg", default="/work/lab/code/configs/ud_accurate.cfg")
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
    model = out / "model-best"
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
    if a.ft:
        ft = out / "ft"
        model = ft / "model-best"
        if not model.exists():
            cfg = finetune_config(out / "model-best", out / "ft.cfg")
            sh([BIN, "train", cfg, "--output", ft, "--paths.train", corpus(a.target, "train"),
                "--paths.dev", corpus(a.target, "dev"), "--training.max_epochs", a.ft, "--system.seed", a.seed,
                *vec], log)
    t2 = time.time()
    models = [("", out / "model-best")] + ([(".ft", model)] if a.ft else [])
    for suffix, path in models:
        result = {"arm": a.arm + suffix.replace(".", "+"), "target": a.target, "seed": a.seed, "train_s": t1 - t0,
                  "ft_s": t2 - t1 if suffix else 0}
        for split in ["dev"] + (["test"] if a.test else []):
            pred = out / f"{split}{suffix}.conllu"
            js = out / f"{split}{suffix}.json"
            if not js.exists():
                sh([BIN, "parse", path, gold(a.target, split), pred], log)
                with open(js, "w") as f:
                    subprocess.run([BIN, "evaluate", gold(a.target, split), pred, "--json"], stdout=f, env=ENV,
                                   check=True)
            result[split] = json.loads(js.read_text())
        (out / f"result{suffix}.json").write_text(json.dumps(result, indent=1))
        print(result["arm"], a.target, a.seed, result["dev"]["official"]["LAS"], f"{time.time() - t0:.0f}s")


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
