#!/usr/bin/env python3
"""The target stage, varied: from RUN/model-best, K epochs on the target alone into RUN/NAME; dev parsed and scored.

ft_variant.py ARM TARGET SEED NAME K [-- overrides...]
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import LAB, VEC, parse_and_score, target_stage  # noqa: E402


def main():
    arm, target, seed, name, k, *rest = sys.argv[1:]
    out = LAB / "runs" / arm / target / f"s{seed}"
    lang = target.split("_")[0]
    vec = ["--paths.vectors", VEC[lang], "--nlp.lang", lang] if lang in VEC else []
    t0 = time.time()
    model = target_stage(out, name, target, k, seed, vec, out / f"{name}.log", [x for x in rest if x != "--"])
    off = parse_and_score(model, target, "dev", out / f"dev.{name}", out / f"{name}.log")["official"]
    print(arm, name, target, seed, off["LAS"], off.get("Lemmas"), f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
