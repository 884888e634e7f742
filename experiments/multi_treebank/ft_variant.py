#!/usr/bin/env python3
"""The target stage, varied: from RUN/model-best, K epochs on the target alone into RUN/NAME; dev parsed and scored.

ft_variant.py ARM TARGET SEED NAME K [-- overrides...]
"""
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import BIN, ENV, LAB, VEC, corpus, finetune_config, gold, sh  # noqa: E402


def main():
    arm, target, seed, name, k, *rest = sys.argv[1:]
    rest = [x for x in rest if x != "--"]
    out = LAB / "runs" / arm / target / f"s{seed}"
    log = out / f"{name}.log"
    lang = target.split("_")[0]
    vec = ["--paths.vectors", VEC[lang], "--nlp.lang", lang] if lang in VEC else []
    ft = out / name
    t0 = time.time()
    if not (ft / "model-best").exists():
        cfg = finetune_config(out / "model-best", out / f"{name}.cfg")
        sh([BIN, "train", cfg, "--output", ft, "--paths.train", corpus(target, "train"), "--paths.dev",
            corpus(target, "dev"), "--training.max_epochs", k, "--system.seed", seed, *vec, *rest], log)
    pred, js = out / f"dev.{name}.conllu", out / f"dev.{name}.json"
    if not js.exists():
        sh([BIN, "parse", ft / "model-best", gold(target, "dev"), pred], log)
        with open(js, "w") as f:
            subprocess.run([BIN, "evaluate", gold(target, "dev"), pred, "--json"], stdout=f, env=ENV, check=True)
    off = json.loads(js.read_text())["official"]
    print(arm, name, target, seed, off["LAS"], off.get("Lemmas"), f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
