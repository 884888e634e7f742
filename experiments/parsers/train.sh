#!/bin/bash
# train.sh CONFIG TREEBANK SEED NAME [overrides...]: one run of docs/results.md's "The graph-based
# parser and the leader" on one core: train CONFIG on TREEBANK's train split (EPOCHS epochs, 20 by default;
# no vectors; the language from the treebank's code), parse its dev split with model-best, score it with
# the CoNLL 2018 scorer. Reads the DocBins LAB/corpus/TREEBANK/{train,dev}.spacy (spacy-planar convert)
# and the treebanks in SPACY_PLANAR_DATA; writes LAB/runs/TREEBANK/NAME/sSEED/{train.log,dev.conllu,dev.json}.
set -euo pipefail
CFG=$1; TB=$2; SEED=$3; NAME=$4; shift 4
LAB=${SPACY_PLANAR_LAB:-lab}
DATA=${SPACY_PLANAR_DATA:-$(dirname "$0")/../../../shared/data/ud}
BIN=${SPACY_PLANAR_BIN:-spacy-planar}
OUT=$LAB/runs/$TB/$NAME/s$SEED
mkdir -p "$OUT"; rm -f "$OUT/status"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
start=$(date +%s)
$BIN train "$CFG" --output "$OUT" --paths.train "$LAB/corpus/$TB/train.spacy" --paths.dev "$LAB/corpus/$TB/dev.spacy" \
  --system.seed "$SEED" --training.max_epochs "${EPOCHS:-20}" --nlp.lang "${TB%%_*}" "$@" > "$OUT/train.log" 2>&1
mid=$(date +%s)
$BIN parse "$OUT/model-best" "$DATA/$TB/dev.conllu" "$OUT/dev.conllu" > "$OUT/parse.log" 2>&1
$BIN evaluate "$DATA/$TB/dev.conllu" "$OUT/dev.conllu" --json > "$OUT/dev.json"
echo "train_s $((mid - start))" > "$OUT/status"
