#!/usr/bin/env bash
# A/B of a change to the normalizations on one machine, in one device call: bench-norm (NORM_OPS
# against torch, swept and validation shapes; LayerNorm and RMSNorm unless named) with PATCH
# reversed (A), then as copied (B), the norm GPU tests on B first; lab/norm/ab_table.py compares
# the two.
# usage: PATCH=<patch of the change, relative to the repository> [APPLY=1] [CUOP_GIT_REV=<rev>]
#          [NORM_OPS=layernorm,rmsnorm,groupnorm] bash lab/norm/ab.sh
#   (on the lent machine; $OUT comes back). Make the patch before the call, e.g.
#   git diff main -- kernels configs > lab/tmp-gpu/change.patch (the machine has no .git).
#   APPLY=1: the tree is A and the patch makes B (e.g. lab/norm/variants/*.patch).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
[[ -f "${PATCH:-}" ]] || { echo "lab/norm/ab.sh: error: PATCH names no file" >&2; exit 2; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
CUOP_CMAKE_ARGS=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export CUOP_CMAKE_ARGS LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export RUN_OUT=/tmp/ab-run BUILD_DIR="$PWD/build" CUDA_ARCHS=90a JOBS=16 CUOP_CACHE_DIR=/tmp/cuop-cache
mkdir -p "$RUN_OUT"
t0=$(date +%s)
side() {  # NAME: build, (B) the norm GPU tests, the package, bench-norm to $OUT/norm-NAME.json
  ci/gpu/run.sh build > "$OUT/build-$1.log" 2>&1 || { tail -20 "$OUT/build-$1.log"; exit 1; }
  if [[ $1 == B ]]; then
    timeout "${TESTS_S:-90}" ci/gpu/run.sh gpu-tests '*norm*' > "$OUT/tests-B.log" 2>&1
    echo "B: norm GPU tests exit $?"
  fi
  ci/gpu/run.sh python install >> "$OUT/build-$1.log" 2>&1
  NORM_OPS="${NORM_OPS:-layernorm,rmsnorm}" timeout "${BENCH_S:-150}" ci/gpu/run.sh bench-norm >> "$OUT/build-$1.log" 2>&1
  cp "$RUN_OUT/bench-norm.json" "$OUT/norm-$1.json"
  rm -f "$RUN_OUT"/bench-norm.*
  echo "$1: done at $(($(date +%s) - t0)) s"
}
if [[ "${APPLY:-0}" == 1 ]]; then  # the tree is A, the patch makes B (a variant kept in lab/)
  side A
  patch -p1 < "$PATCH" > /dev/null || { echo "lab/norm/ab.sh: error: $PATCH does not apply" >&2; exit 1; }
  side B
  patch -R -p1 < "$PATCH" > /dev/null
else
  patch -R -p1 < "$PATCH" > /dev/null || { echo "lab/norm/ab.sh: error: $PATCH does not reverse" >&2; exit 1; }
  side A
  patch -p1 < "$PATCH" > /dev/null || exit 1
  side B
fi
python3 lab/norm/ab_table.py "$OUT/norm-A.json" "$OUT/norm-B.json"
