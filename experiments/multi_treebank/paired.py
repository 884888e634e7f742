"""Paired bootstrap on dev: per-sentence LAS counts (gold words, universal labels as CoNLL 2018) of
arms' dev.conllu, each arm the mean over its seeds. usage: paired.py TARGET ARM_A[:file] ARM_B[:file]"""
import glob
import os
import sys
from pathlib import Path

import numpy as np

from spacy_planar.io.conllu import read_conllu
from spacy_planar.eval.metrics import paired_bootstrap
UD = os.environ.get("SPACY_PLANAR_DATA", str(Path(__file__).resolve().parents[3] / "shared" / "data" / "ud"))
LAB = os.environ.get("SPACY_PLANAR_LAB", "lab")
tb = sys.argv[1]
gold = list(read_conllu(f"{UD}/{tb}/dev.conllu"))
def right(path):
    out = []
    for g, s in zip(gold, read_conllu(path)):
        pairs = zip(g.heads, g.deprels, s.heads, s.deprels)
        out.append(sum(1 for h, lab, sh, slab in pairs if h == sh and lab.split(":")[0] == slab.split(":")[0]))
    return np.array(out, dtype=float)
def arm(spec):
    name, _, f = spec.partition(":")
    files = sorted(glob.glob(f"{LAB}/runs/{name}/{tb}/s*/{f or 'dev.conllu'}"))
    return np.mean([right(p) for p in files], axis=0), len(files)
a, na = arm(sys.argv[2])
b, nb = arm(sys.argv[3])
words = np.array([len(g.heads) for g in gold])
d, p = paired_bootstrap(a, b, words)
las_a, las_b = 100 * a.sum() / words.sum(), 100 * b.sum() / words.sum()
print(f"{tb}: {sys.argv[2]} ({na} seeds) {las_a:.2f} vs {sys.argv[3]} ({nb}) {las_b:.2f}: {d:+.2f} p={p:.3f}")
