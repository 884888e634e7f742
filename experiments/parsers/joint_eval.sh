#!/bin/bash
# joint_eval.sh TREEBANK SEED: after train.sh's runs NAME=ae (init-config arc_eager --tagging --accurate), bia (init-config
# biaffine --tagging --accurate) and joint (configs/ud_accurate.cfg) of that seed: the joint pipeline's
# ways of deciding and its parsers' own trees (joint_votes.py), and the two pipelines reparsed as
# `parse AE DEV OUT --ensemble BIA` does (a beam of 8): LAB/runs/TREEBANK/{joint/sSEED/votes,pair/sSEED}.
set -euo pipefail
TB=$1; SEED=$2
LAB=${SPACY_PLANAR_LAB:-lab}
DATA=${SPACY_PLANAR_DATA:-$(dirname "$0")/../../../shared/data/ud}
BIN=${SPACY_PLANAR_BIN:-spacy-planar}
PY=${SPACY_PLANAR_PYTHON:-python}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
R=$LAB/runs/$TB
$PY "$(dirname "$0")/joint_votes.py" "$R/joint/s$SEED/model-best" "$DATA/$TB/dev.conllu" "$R/joint/s$SEED/votes"
mkdir -p "$R/pair/s$SEED"
$BIN parse "$R/ae/s$SEED/model-best" "$DATA/$TB/dev.conllu" "$R/pair/s$SEED/dev.conllu" \
  --ensemble "$R/bia/s$SEED/model-best" > "$R/pair/s$SEED/parse.log" 2>&1
$BIN evaluate "$DATA/$TB/dev.conllu" "$R/pair/s$SEED/dev.conllu" --json > "$R/pair/s$SEED/dev.json"
