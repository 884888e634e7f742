"""Raw text in (issue 95): the dev set's text as ``parse`` reads raw text (``convert DEV OUT.txt``:
a paragraph a line), parsed by the joint pipeline (the decider's trees) and by its arc-eager
alone (the biaffine and the decider disabled), each scored with the CoNLL 2018 scorer against
DEV: Sentences F1, and LAS on raw text; and how many sentences have other than one root.

usage: raw_sents.py MODEL DEV.conllu OUT_DIR
"""
import json
import subprocess
import sys
from pathlib import Path

import spacy

from spacy_planar.corpus.files import parse_file
from spacy_planar.eval.official import conll18_scores
from spacy_planar.io.conllu import read_conllu
from spacy_planar.io.pipelines import pipeline_path

ARMS = {"joint": [], "arc_eager_own": ["biaffine_parser", "parse_decider"]}


def main(model: str, dev: str, out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = out / "dev.txt"
    subprocess.run([sys.executable, "-m", "spacy_planar", "convert", dev, str(text)], check=True,
                   capture_output=True)
    nlp = spacy.load(pipeline_path(model))
    rows = {}
    for arm, disabled in ARMS.items():
        parsed = out / f"raw_{arm}.conllu"
        with nlp.select_pipes(disable=disabled):
            parse_file(nlp, text, parsed, progress=False)
        scores = conll18_scores(Path(dev), parsed)[0]
        sents = list(read_conllu(parsed))
        rows[arm] = {"Sentences": scores["Sentences"], "Words": scores["Words"], "LAS": scores["LAS"],
                     "sentences": len(sents), "not_one_root": sum(s.heads.count(0) != 1 for s in sents)}
    print(json.dumps(rows))
    (out / "raw.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:4])
