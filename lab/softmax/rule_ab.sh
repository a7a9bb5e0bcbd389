#!/usr/bin/env bash
# A/B of the softmax default rule's row_tile line on one machine, in one device call: the
# validation holdout (seeds 20261205 and 7, 100 shapes each, torch beside) with the line disabled
# (A: its element-count condition made false in a copy of family.cpp) and as committed (B).
# usage: CUOP_GIT_REV=<rev> bash lab/softmax/rule_ab.sh   (on the lent machine; $OUT comes back)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
CUOP_CMAKE_ARGS=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export CUOP_CMAKE_ARGS LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export RUN_OUT="$OUT" BUILD_DIR="$PWD/build" CUDA_ARCHS=90a JOBS=16 CUOP_CACHE_DIR=/tmp/cuop-cache
f=kernels/src/softmax/family.cpp
cp "$f" /tmp/family.cpp.orig
trap 'cp /tmp/family.cpp.orig "$f"' EXIT
sed -i 's/rows \* cols >= rule_tile_min_elements;/rows * cols >= rule_tile_min_elements \&\& rows < 0;/' "$f"
grep -q "rows < 0" "$f" || { echo "rule_ab.sh: the rule's row_tile condition was not found in $f" >&2; exit 1; }
for side in A B; do
  [[ $side == B ]] && cp /tmp/family.cpp.orig "$f"
  ci/gpu/run.sh build cuop-holdout-runner > "$OUT/build-$side.log" 2>&1 || { tail -20 "$OUT/build-$side.log"; exit 1; }
  for seed in 20261205 7; do
    SEED=$seed N=100 timeout 100 ci/gpu/run.sh holdout softmax > /dev/null 2>&1
    cp "$OUT/holdout-softmax.json" "$OUT/h-$side-$seed.json"
    echo "$side seed $seed: $(grep '^| softmax |' "$OUT/holdout-softmax.txt")"
  done
done
