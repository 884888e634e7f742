"""The joint pipeline's (``init-config joint``) trees on a dev set, each way its ``parse_decider``
can decide: arc-eager's vote as its moves' probabilities (the shipped way) at each mixing weight
of ``WEIGHTS`` (arc-eager's share; the biaffine's the rest), as its tree alone, as its beam's k
best parses (a beam of 8); and each parser's own tree (the decider, or it and the biaffine,
disabled). Each written as OUT/NAME.conllu and scored with the CoNLL 2018 scorer.

usage: joint_votes.py MODEL GOLD.conllu OUT_DIR
"""
import json
import sys
from pathlib import Path

import spacy

from spacy_planar.corpus.files import parse_file
from spacy_planar.eval.official import conll18_scores
from spacy_planar.io.pipelines import pipeline_path

WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7)
# each way, the components' settings at load
WAYS = {**{f"moves_w{w}": {"parse_decider": {"weights": [w, 1 - w]}} for w in WEIGHTS},
        "tree": {"parse_decider": {"votes": "tree"}},
        "beam8": {"planar_parser": {"beam_width": 8, "n_best": 8}, "parse_decider": {"votes": "kbest"}}}
OWN = {"biaffine_own": ["parse_decider"], "arc_eager_own": ["biaffine_parser", "parse_decider"]}


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
    for name, disabled in OWN.items():
        with nlp.select_pipes(disable=disabled):
            parse_file(nlp, Path(gold), out / f"{name}.conllu", progress=False)
        scores[name] = conll18_scores(Path(gold), out / f"{name}.conllu")[0]["LAS"]
    print(json.dumps(scores))
    (out / "votes.json").write_text(json.dumps(scores, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:4])
