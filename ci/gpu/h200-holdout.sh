#!/usr/bin/env bash
# One device call: build (sm_90a) against the results in CUOP_RESULTS (the committed results/ by
# default), optionally run the GPU tests (TESTS=1), then the holdout of every op in OPS: N shapes
# drawn with SEED from configs/distributions/<op>.yaml, the dispatched op against its baseline
# (and torch.softmax) side by side (scripts/holdout.py, docs/dispatch.md); TESTS_REGEX narrows the
# tests, SWEEPS (sweep files) are swept first into $OUT/regions.db, AA=1 makes the holdout an A/A
# run (the baseline on both sides: the comparison's own noise). Each op gets at most
# OP_S seconds. Writes log.txt, gpu-tests.txt, holdout-<op>.json and holdout-<op>.txt (the markdown
# table) under $OUT and prints
# the summaries last.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
log="$OUT/log.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }

step "offline dependencies"
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1

step "configure + build"
results="${CUOP_RESULTS:-$PWD/results}"
# shellcheck disable=SC2086
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
  -DCUOP_RESULTS_DIR="$results" $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -30; exit 1; }

if [[ "${TESTS:-0}" == 1 ]]; then
  step "GPU tests ${TESTS_REGEX:-}"
  (cd build && timeout "${TESTS_S:-240}" ctest -L gpu -j4 --output-on-failure ${TESTS_REGEX:+-R "$TESTS_REGEX"}) \
    >"$OUT/gpu-tests.txt" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run" "$OUT/gpu-tests.txt" | tail -15
fi

if [[ -n "${SWEEPS:-}" ]]; then  # region sweeps into $OUT/regions.db; the sweep prints its models
  step "sweep $SWEEPS"
  # shellcheck disable=SC2086
  timeout "${SWEEP_S:-300}" ./build/tuner/cuop-tune sweep $SWEEPS --db "$OUT/regions.db" --cache /tmp/cuop-cache -j16 \
    >"$OUT/sweep.txt" 2>&1
  echo "sweep: exit $?" | tee -a "$log"
  tail -12 "$OUT/sweep.txt"
fi

status=0
for op in ${OPS:-softmax gemm conv2d}; do
  step "holdout $op"
  CUOP_HOLDOUT_AA="${AA:-0}" PYTHONUNBUFFERED=1 timeout "${OP_S:-150}" python3 scripts/holdout.py run build "configs/distributions/$op.yaml" \
    --n "${N:-100}" --seed "${SEED:-20261205}" --json "$OUT/holdout-$op.json" >"$OUT/holdout-$op.txt" 2>&1
  rc=$?
  echo "holdout $op: exit $rc" | tee -a "$log"
  [[ $rc -gt $status ]] && status=$rc
done
for op in ${OPS:-softmax gemm conv2d}; do
  echo "--- $op"
  grep -A6 "^| group" "$OUT/holdout-$op.txt" || tail -5 "$OUT/holdout-$op.txt"
done
exit $status
