#!/bin/bash
# one worker: runs queue/*.job in name order, one at a time
cd "${SPACY_PLANAR_LAB:?set SPACY_PLANAR_LAB to the lab folder}"
id=$1
while true; do
  [ -f stop.$id ] && exit 0
  job=$(ls queue/*.job 2>/dev/null | sort | head -1)
  if [ -z "$job" ]; then sleep 20; continue; fi
  base=$(basename $job)
  mv "$job" "running.$base.$id" 2>/dev/null || continue
  echo "$(date +%T) start $base" >> logs/worker$id.log
  bash "running.$base.$id" >> logs/worker$id.log 2>&1
  echo "$(date +%T) end $base rc=$?" >> logs/worker$id.log
  mv "running.$base.$id" done/$base
done
