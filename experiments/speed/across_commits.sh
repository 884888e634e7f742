#!/bin/bash
# across_commits.sh COMMIT CONLLU DOCBIN [REPEATS]: the accurate tier's untrained pipeline (init-config
# arc_eager --tagging --accurate, initialized on DOCBIN) built and parsed by COMMIT's code and by this
# checkout's, alternating, one thread: words/s of nlp.pipe over CONLLU's gold words (pipe_speed.py),
# best of 3, REPEATS rounds (3). COMMIT's code runs from a worktree with its own entry points
# (sitecustomize.py); its Cython modules are built there. docs/results.md, 2026-12-04.
set -euo pipefail
COMMIT=$1; CONLLU=$(realpath "$2"); DOCBIN=$(realpath "$3"); ROUNDS=${4:-3}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../.." && pwd)
PY=${PYTHON:-python}
WORK=$(mktemp -d); trap 'git -C "$ROOT" worktree remove --force "$WORK/old" 2>/dev/null || true; rm -rf "$WORK"' EXIT
git -C "$ROOT" worktree add -q "$WORK/old" "$COMMIT"
(cd "$WORK/old" && $PY setup.py build_ext --inplace -q > /dev/null)
export OMP_NUM_THREADS=1
cd "$WORK"  # not a checkout: init-config reads no configs/ of either
build() {  # build CODE OUT
  $PY -m spacy_planar init-config arc_eager "$2.cfg" --tagging --accurate > /dev/null
  $PY - "$2.cfg" "$2" "$DOCBIN" <<'PY'
import importlib, pkgutil, sys
from spacy.training.initialize import init_nlp
from thinc.api import Config
import spacy_planar
for module in pkgutil.walk_packages(spacy_planar.__path__, "spacy_planar."):
    importlib.import_module(module.name)  # every registration, as the commit's entry points name them
config = Config().from_disk(sys.argv[1], overrides={"paths.train": sys.argv[3], "paths.dev": sys.argv[3]})
init_nlp(config).to_disk(sys.argv[2])
PY
}
SPACY_PLANAR_OLD="$WORK/old" PYTHONPATH="$WORK/old:$HERE" build old "$WORK/old_nlp"
build new "$WORK/new_nlp"
for _ in $(seq "$ROUNDS"); do
  echo -n "$COMMIT: "; SPACY_PLANAR_OLD="$WORK/old" PYTHONPATH="$WORK/old:$HERE" $PY "$HERE/pipe_speed.py" "$WORK/old_nlp" "$CONLLU"
  echo -n "this checkout: "; $PY "$HERE/pipe_speed.py" "$WORK/new_nlp" "$CONLLU"
done
