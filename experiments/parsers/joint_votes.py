"""The joint pipeline's (``init-config joint``) trees on a dev set, each way it can decide: the
transition parser's vote as its moves' probabilities (the shipped way), as its tree alone, as its
beam's k best parses (a beam of 8); and each parser's own tree (arc-eager with the biaffine
disabled; the biaffine loaded without ``reparse_with``). Each written as OUT/NAME.conllu and
scored with the CoNLL 2018 scorer.

usage: joint_votes.py MODEL GOLD.conllu OUT_DIR
"""
import json
import sys
from pathlib import Path

import spacy

from spacy_planar.corpus.files import parse_file
from spacy_planar.eval.official import conll18_scores
from spacy_planar.io.pipelines import pipeline_path

# each way, the components' settings at load
WAYS = {"moves": {}, "tree": {"planar_parser": {"head_probs": False}},
        "beam8": {"planar_parser": {"beam_width": 8, "n_best": 8}},
        "biaffine_own": {"biaffine_parser": {"reparse_with": None}}}


def main(model: str, gold: str, out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = pipeline_path(model)
    scores = {}
    for name, settings in WAYS.items():
        nlp = spacy.load(path, config={"components": settings})
        parse_file(nlp, Path(gold), out / f"{name}.conllu", progress=False)
        scores[name] = conll18_scores(Path(gold), out / f"{name}.conllu")[0]["LAS"]
    nlp = spacy.load(path)
    with nlp.select_pipes(disable=["biaffine_parser"]):
        parse_file(nlp, Path(gold), out / "arc_eager_own.conllu", progress=False)
    scores["arc_eager_own"] = conll18_scores(Path(gold), out / "arc_eager_own.conllu")[0]["LAS"]
    print(json.dumps(scores))
    (out / "votes.json").write_text(json.dumps(scores, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:4])
