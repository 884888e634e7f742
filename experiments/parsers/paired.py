"""Paired bootstrap over dev sentences (10,000 resamples: spacy_planar.eval.metrics.paired_bootstrap) of two
arms, each the mean over its files (seeds) of each sentence's right words (gold head and the label's universal
part, as the CoNLL 2018 scorer counts LAS).

usage: paired.py GOLD.conllu "A_FILES_GLOB" "B_FILES_GLOB"
"""
import glob
import sys

import numpy as np

from spacy_planar.eval.metrics import paired_bootstrap
from spacy_planar.io.conllu import read_conllu


def right(gold, path):
    out = []
    for g, s in zip(gold, read_conllu(path)):
        pairs = zip(g.heads, g.deprels, s.heads, s.deprels)
        out.append(sum(1 for h, lab, sh, slab in pairs if h == sh and lab.split(":")[0] == slab.split(":")[0]))
    return np.array(out, dtype=float)


def main(gold_path, a_glob, b_glob):
    gold = list(read_conllu(gold_path))
    words = np.array([len(g.heads) for g in gold])
    arms = []
    for pattern in (a_glob, b_glob):
        files = sorted(glob.glob(pattern))
        if not files:
            sys.exit(f"no file matches {pattern}")
        arms.append((np.mean([right(gold, f) for f in files], axis=0), len(files)))
    (a, na), (b, nb) = arms
    d, p = paired_bootstrap(a, b, words)
    print(f"A ({na} files) {100 * a.sum() / words.sum():.2f} vs B ({nb}) {100 * b.sum() / words.sum():.2f}: "
          f"{d:+.2f} p={p:.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
