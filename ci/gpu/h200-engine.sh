#!/usr/bin/env bash
# The measurement engine and the gate on the H200, in phases that fit the device's 10-minute
# calls; run them back to back on one warm machine (the build folder carries over):
#   bash ci/gpu/h200-engine.sh tests        configure, build (sm_90a), every GPU test, the engine's
#                                           figures (measure_engine.* with their output)
#   bash ci/gpu/h200-engine.sh aa SUITE...  A/A: `gate SUITE --against` this very build (A B B A),
#                                           then the same suite against round 1 as a baseline
#   bash ci/gpu/h200-engine.sh race         strategy: race over configs/softmax.yaml, compared
#                                           with the committed (exhaustive) results
#   REPS=4 bash ci/gpu/h200-engine.sh inject   the calibration kernel (tests/calibration): which
#                                           injected slowdowns (1, 2, 5, 10%) the gate detects
#   bash ci/gpu/h200-engine.sh scaleout     the isolated GPU tests (gate A/A, faults, crash safety
#                                           while measuring, --devices), the CI gate against the
#                                           committed results/, and a --devices all sweep of
#                                           configs/softmax.yaml compared with results/softmax
#   bash ci/gpu/h200-engine.sh rebase       measure again what batched timing changes: the whole
#                                           softmax sweep, and the conv and GEMM problems whose
#                                           committed winner is under 25 us (ONLY_CONV, ONLY_GEMM
#                                           override); databases to $OUT/rebase-dbs.tar.xz, for
#                                           `cuop-tune export --update` (docs/measurement.md)
# Reports (JSON) and logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
phase="${1:-tests}"
shift || true
log="$OUT/log-$phase.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
tune="$PWD/build/tuner/cuop-tune"

build() {
  [[ -x "$tune" && "${REBUILD:-0}" != 1 ]] && return 0
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -30; exit 1; }
  step "built"
}

# One gate run; its JSON report to $OUT/NAME.json, its log to $OUT/NAME.log, a one-line summary.
gate_run() {
  local name="$1"
  shift
  "$tune" gate "$@" --format json >"$OUT/$name.json" 2>"$OUT/$name.log"
  local rc=$?
  python3 - "$OUT/$name.json" "$name" "$rc" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
path, name, rc = sys.argv[1:]
try:
    j = json.load(open(path))
except Exception as e:
    print(f"{name}: exit {rc}, no report ({e})"); sys.exit()
s = j.get("summary", {})
rows = j.get("rows", [])
worst = max((r.get("ratio", 0) for r in rows), default=0)
amb = sum(1 for r in rows if r.get("verdict") == "AMBIGUOUS")
retried = sum(1 for r in rows if r.get("retries", 0) > 0)
print(f"{name}: exit {rc}, compared {s.get('compared')}, slower {s.get('slower')}, faster {s.get('faster')}, "
      f"same {s.get('same')}, ambiguous {amb}, rows retried {retried}, worst ratio {worst:.4f}")
PY
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$log" 2>&1
case "$phase" in
tests)
  build
  step "GPU tests (one process, every GPU test, their printed figures)"
  { build/tests/cuop_gpu_tests; build/tests/cuop_gpu_isolated_tests; } >"$OUT/gpu-tests.txt" 2>&1
  echo "exit $?" | tee -a "$log"
  grep -E "^\[  (FAILED|SKIPPED|PASSED) |tests ran" "$OUT/gpu-tests.txt" | sort | uniq -c | sort -rn | head -40 | tee -a "$log"
  ;;
aa)
  build
  for suite in "$@"; do
    name=$(basename "$suite" .yaml)
    rm -rf "/tmp/aa-$name" && mkdir -p "/tmp/aa-$name"
    step "A/A $suite: A B B A against itself"
    gate_run "aa-$name-abba" "$suite" --against "$tune" --db "/tmp/aa-$name/gate.db" --cache /tmp/aa-cache -j16
    step "A/A $suite: against round 1 as a baseline"
    gate_run "aa-$name-baseline" "$suite" --baseline "/tmp/aa-$name/gate.db" --db "/tmp/aa-$name/again.db" --cache /tmp/aa-cache -j16
    mkdir -p "$OUT/dbs-$name" && cp "/tmp/aa-$name"/*.db "$OUT/dbs-$name/" 2>/dev/null
  done
  python3 ci/gpu/winner_spread.py "$OUT"/dbs-* | tee -a "$OUT/summary.txt"
  ;;
inject)
  # The calibration kernel at 0, 1, 2, 5 and 10% more work (extra_permille) as "this build", each
  # gated $REPS times against 0: in A B B A rounds (B, the reference, is this binary on the suite
  # without extra work, through a wrapper that swaps the suite's path) and against a baseline
  # database of 0 measured once.
  build
  cal=/tmp/cal && rm -rf $cal && mkdir -p $cal
  src="$PWD/tests/calibration/extra_work_softmax.cuh"
  for x in 0 10 20 50 100; do
    sed -e "s|source: extra_work_softmax.cuh|source: $src|" -e "s/extra_permille: \[0\]/extra_permille: [$x]/" \
      tests/calibration/calibration.yaml >$cal/extra-$x.yaml
    # The reference build (B): this very binary, on the suite without the extra work.
    printf '#!/usr/bin/env bash\nargs=()\nfor a in "$@"; do [[ "$a" == %s ]] && a=%s; args+=("$a"); done\nexec %s "${args[@]}"\n' \
      "$cal/extra-$x.yaml" "$cal/extra-0.yaml" "$tune" >$cal/b-$x.sh
    chmod +x $cal/b-$x.sh
  done
  step "baseline database of 0"
  "$tune" sweep $cal/extra-0.yaml --db $cal/base.db --cache /tmp/aa-cache -j16 >>"$log" 2>&1
  for rep in $(seq 1 "${REPS:-4}"); do
    for x in 0 10 20 50 100; do
      step "rep $rep, +$x permille: A B B A"
      gate_run "inject-abba-$x-$rep" $cal/extra-$x.yaml --against $cal/b-$x.sh --db $cal/g-$x-$rep.db --cache /tmp/aa-cache -j16
      step "rep $rep, +$x permille: against the baseline"
      gate_run "inject-base-$x-$rep" $cal/extra-$x.yaml --baseline $cal/base.db --db $cal/b-$x-$rep.db --cache /tmp/aa-cache -j16
    done
  done
  ;;
race)
  # strategy: race on the whole softmax sweep, against the committed exhaustive results.
  build
  sed 's/^strategy: exhaustive/strategy: race/' configs/softmax.yaml >/tmp/softmax-race.yaml
  rm -f /tmp/race.db
  step "race sweep"
  start=$(date +%s)
  "$tune" sweep /tmp/softmax-race.yaml --db /tmp/race.db --cache /tmp/aa-cache -j16 >"$OUT/race.log" 2>&1
  echo "race sweep: exit $?, $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  python3 - /tmp/race.db <<'PY' | tee -a "$OUT/summary.txt"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for status, n, samples in con.execute("select status, count(*), sum(samples) from trials group by status"):
    print(f"  {status}: {n} trials, {samples} samples")
PY
  "$tune" compare results/softmax /tmp/race.db --allow-different-env --format markdown >"$OUT/race-compare.md" 2>>"$OUT/race.log"
  echo "compare with the committed exhaustive results: exit $?" | tee -a "$OUT/summary.txt"
  "$tune" best --db /tmp/race.db >"$OUT/race-best.txt" 2>&1
  step "isolated GPU tests"
  build/tests/cuop_gpu_isolated_tests 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | tee -a "$OUT/summary.txt"
  ;;
scaleout)
  build
  step "isolated GPU tests"
  build/tests/cuop_gpu_isolated_tests >"$OUT/isolated-tests.txt" 2>&1
  echo "isolated GPU tests: exit $?" | tee -a "$OUT/summary.txt"
  grep -E "^\[  (FAILED|SKIPPED|PASSED|     OK) |^kill " "$OUT/isolated-tests.txt" | tee -a "$OUT/summary.txt"
  step "gate against the committed results"
  gate_run "gate-results" configs/gate/*.yaml --baseline results/ --cache /tmp/aa-cache -j16
  step "sweep --devices all of configs/softmax.yaml"
  rm -f /tmp/devices.db
  start=$(date +%s)
  "$tune" sweep configs/softmax.yaml --devices all --db /tmp/devices.db --cache /tmp/aa-cache >"$OUT/devices-sweep.log" 2>&1
  echo "devices sweep: exit $?, $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  tail -16 "$OUT/devices-sweep.log" | tee -a "$OUT/summary.txt"
  "$tune" compare results/softmax /tmp/devices.db --allow-different-env >"$OUT/devices-compare.txt" 2>&1
  echo "compare with results/softmax: exit $?" | tee -a "$OUT/summary.txt"
  cp /tmp/devices.db "$OUT/devices.db"
  ;;
rebase)
  build
  db=/tmp/rebase && mkdir -p $db
  step "softmax: the whole sweep"
  timeout "${SOFTMAX_S:-240}" "$tune" sweep configs/softmax.yaml --db $db/softmax.db --cache /tmp/aa-cache -j16 >"$OUT/rebase-softmax.log" 2>&1
  echo "softmax sweep: exit $?" | tee -a "$OUT/summary.txt"
  step "conv: the problems under 25 us"
  timeout "${CONV_S:-150}" "$tune" sweep configs/conv.yaml --only "${ONLY_CONV:-32x14x14x256_k256_r3x3,32x56x56x256_k64_r1x1,32x28x28x128_k128_r3x3,32x28x28x256_k256_r7x7,32x7x7x512_k512_r3x3}" \
    --db $db/conv2d.db --cache /tmp/aa-cache -j16 >"$OUT/rebase-conv.log" 2>&1
  echo "conv sweep: exit $?" | tee -a "$OUT/summary.txt"
  step "gemm: the problems under 25 us"
  timeout "${GEMM_S:-300}" "$tune" sweep configs/gemm.yaml --only "${ONLY_GEMM:-1x1024x4096,16x1024x4096,64x1024x4096,128x1024x4096,512x1024x4096,1000x1000x1000,1x4096x4096,16x4096x4096,64x4096x4096,128x4096x4096,1x6144x4096,16x6144x4096,64x6144x4096,128x6144x4096}" \
    --db $db/gemm.db --cache /tmp/aa-cache -j16 >"$OUT/rebase-gemm.log" 2>&1
  echo "gemm sweep: exit $?" | tee -a "$OUT/summary.txt"
  for log in "$OUT"/rebase-*.log; do tail -4 "$log"; done | tee -a "$OUT/summary.txt"
  tar -C $db -cJf "$OUT/rebase-dbs.tar.xz" . && ls -la "$OUT/rebase-dbs.tar.xz"
  ;;
*)
  echo "unknown phase $phase" >&2
  exit 2
  ;;
esac
step "done"
cat "$OUT/summary.txt" 2>/dev/null
