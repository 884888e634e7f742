"""The rows of docs/results.md's "Both parsers in one pipeline" table from LAB/runs (train.sh's
runs ae, bia, joint and joint_eval.sh's): per treebank, each arm's dev LAS (the CoNLL 2018 scorer)
mean ± sd over the seeds, and the paired bootstrap of the joint pipeline against each
(``paired.py`` over the seeds' mean right words per sentence).

usage: joint_table.py LAB DATA [TREEBANK ...]
"""
import glob
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from spacy_planar.eval.official import conll18_scores

RUN = os.environ.get("JOINT_RUN", "joint")  # train.sh's NAME of the joint pipeline's runs
ARMS = {"arc-eager (init-config arc_eager --accurate)": "ae/s{}/dev.conllu", "biaffine (init-config biaffine --accurate)":
        "bia/s{}/dev.conllu", "the two reparsed (parse AE --ensemble BIA, beam 8)": "pair/s{}/dev.conllu",
        "joint: arc-eager's moves vote (shipped), weight 0.5": RUN + "/s{}/votes/moves_w0.5.conllu",
        **{f"joint: moves, arc-eager's weight {w}": RUN + f"/s{{}}/votes/moves_w{w}.conllu" for w in (0.3, 0.4, 0.6, 0.7)},
        "joint: arc-eager's tree votes": RUN + "/s{}/votes/tree.conllu",
        "joint: arc-eager's beam of 8 votes": RUN + "/s{}/votes/beam8.conllu",
        "joint's arc-eager alone": RUN + "/s{}/votes/arc_eager_own.conllu",
        "joint's biaffine alone": RUN + "/s{}/votes/biaffine_own.conllu"}
JOINT = RUN + "/s*/votes/moves_w0.5.conllu"


def main(lab: str, data: str, *treebanks: str) -> None:
    for tb in treebanks:
        runs, gold = Path(lab) / "runs" / tb, Path(data) / tb / "dev.conllu"
        print(f"\n{tb}")
        for name, pattern in ARMS.items():
            files = sorted(glob.glob(str(runs / pattern.format("*"))))
            las = [conll18_scores(gold, Path(f))[0]["LAS"] for f in files]
            if not las:
                continue
            paired = ""
            if "(shipped)" not in name:
                out = subprocess.run([sys.executable, str(Path(__file__).parent / "paired.py"), str(gold),
                                      str(runs / JOINT), str(runs / pattern.format("*"))],
                                     capture_output=True, text=True).stdout.strip()
                paired = out.split(": ", 1)[-1]
            print(json.dumps({"arm": name, "seeds": [round(x, 2) for x in las], "mean": round(statistics.mean(las), 2),
                              "sd": round(statistics.stdev(las), 2) if len(las) > 1 else None,
                              "joint_against_it": paired}))


if __name__ == "__main__":
    main(*sys.argv[1:])
