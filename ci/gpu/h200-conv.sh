#!/usr/bin/env bash
# The convolution device run (issue 4), in phases that fit the device's 10-minute calls:
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-conv.sh sweep   build (sm_90a; cuDNN from the system or
#       torch's wheel), the conv GPU tests, the conv sweep, its best table and its export
#       ($OUT/results/conv2d/*.json, to commit under results/)
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-conv.sh side    build against the committed results/, the
#       conv GPU tests (dispatch included), conv_app, and the side-by-side table of cuop::conv2d,
#       cuDNN's heuristic and torch (scripts/conv_vs_torch.py)
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-conv.sh depthwise   the depthwise GPU tests, a sweep of the
#       7x7 and 31x31 NHWC depthwise problems with the tensor-core candidates only (stages 3, 4 and
#       5, the stages that win them), the committed results updated with it (`export --update`: those
#       problems replaced whole; $OUT/conv2d-nvidia-h200.json), a rebuild against the update, the
#       dispatch tests and the side-by-side table for those problems. The sweep races
#       (`strategy: race`: the finalists re-measured interleaved, so that stages that run close are
#       compared within one run); DW_STRATEGY=exhaustive measures every candidate fully instead;
#       single launches after a flush, as the side-by-side times (DW_BATCH_BELOW_US, default 0)
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-conv.sh depthwise-side   build against the committed
#       results/, conv_app, and the side-by-side table for those depthwise problems only
# The side-by-side tables time each side in CONV_VS_TORCH_PROCS processes (default 3; see
# scripts/conv_vs_torch.py): our slowest median against the heuristic's and torch's fastest.
# Everything worth keeping goes to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
log="$OUT/log-conv.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
DB=/tmp/cuop-h200-conv.db
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
if [[ -z "${CUDNN_ROOT:-}" ]] && ! ls /usr/lib/x86_64-linux-gnu/libcudnn.so* >/dev/null 2>&1; then
  # torch's cuDNN wheel, when the system has none
  CUDNN_ROOT=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null) && export CUDNN_ROOT
  [[ -n "${CUDNN_ROOT:-}" ]] && export LD_LIBRARY_PATH="$CUDNN_ROOT/lib:$LD_LIBRARY_PATH"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1

build() {  # $@: targets; RESULTS: the results folder the dispatch table is emitted from
  step "configure + build $* (results: ${RESULTS:-$PWD/results})"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DCUOP_RESULTS_DIR="${RESULTS:-$PWD/results}" $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  grep -E "cuDNN" "$log" | tail -1
  cmake --build build -j16 --target "$@" >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
}

conv_tests() {
  step "conv GPU tests"
  timeout "${TESTS_S:-150}" ./build/tests/cuop_gpu_tests --gtest_filter='*conv*:*cudnn*:*fft*' >"$OUT/conv-tests.txt" 2>&1
  echo "tests exit $?" | tee -a "$log"
  grep -E "^\[ +(OK|PASSED|FAILED|SKIPPED) |Failure|misses|first bad|Expected|Which is|max error" "$OUT/conv-tests.txt" | head -70
}

# The 7x7 and 31x31 NHWC depthwise problems of configs/conv.yaml with the tensor-core candidates
# (stages 3, 4 and 5) only, racing unless DW_STRATEGY says otherwise, written to $1. Every trial is
# single launches after a flush (DW_BATCH_BELOW_US, default 0), the regime of the side-by-side
# that the issue's goals are stated in: under the tuner's default (20 us) the 17 us layer
# (32x28x28x256) is timed as CUDA graphs of launches, where stages 3 and 4 tied (16.77 against
# 16.67 us at f2e51b6) while single launches put stage 4 at 18.8 us and stage 3 near 17.4
# (docs/conv-h200.md).
write_depthwise_subset() {
  DW_STRATEGY="${DW_STRATEGY:-race}" DW_BATCH_BELOW_US="${DW_BATCH_BELOW_US:-0}" python3 - configs/conv.yaml "$1" <<'EOF'
import os, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
spec["problems"] = [p for p in spec["problems"]
                    if p.get("groups", 1) > 1 and p.get("layout", "nhwc") == "nhwc" and p["r"] in (7, 31)]
spec["candidates"] = [c for c in spec["candidates"] if {3, 4, 5} & set(c["params"].get("stage", []))]
spec["strategy"] = os.environ["DW_STRATEGY"]
spec.setdefault("measure", {})["batch_below_us"] = float(os.environ["DW_BATCH_BELOW_US"])
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
EOF
}

case "${1:-}" in
sweep)
  build cuop-tune cuop_gpu_tests
  conv_tests
  step "conv sweep"
  timeout "${CONV_SWEEP_S:-300}" ./build/tuner/cuop-tune sweep "${SWEEP:-configs/conv.yaml}" --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  grep -E "trials measured|could not" "$log" | tail -5
  ./build/tuner/cuop-tune best --db $DB --op conv2d --format markdown >"$OUT/best-conv.md" 2>&1
  cat "$OUT/best-conv.md"
  ./build/tuner/cuop-tune export --db $DB --op conv2d --out "$OUT/results" >>"$log" 2>&1
  cp $DB "$OUT/h200-conv.db"
  ;;
side)
  build cuop-tune cuop_gpu_tests conv_app conv_bench
  ./build/examples/conv_app 2>&1 | tee -a "$log"
  conv_tests
  step "cuop::conv2d vs cuDNN heuristic vs torch"
  timeout "${SIDE_S:-600}" python3 scripts/conv_vs_torch.py build "${SWEEP:-configs/conv.yaml}" >"$OUT/conv-h200.md" 2>>"$log"
  cat "$OUT/conv-h200.md"
  ;;
depthwise)
  subset=/tmp/depthwise-mma.yaml
  build cuop-tune cuop_gpu_tests
  step "depthwise GPU tests"
  timeout "${TESTS_S:-240}" ./build/tests/cuop_gpu_tests --gtest_filter='*depthwise*' >"$OUT/depthwise-tests.txt" 2>&1
  echo "tests exit $?" | tee -a "$log"
  grep -E "^\[ +(PASSED|FAILED|SKIPPED) |Failure|first bad|Which is" "$OUT/depthwise-tests.txt" | head -30
  step "sweep: the 7x7 and 31x31 NHWC depthwise problems, stages 3, 4 and 5"
  write_depthwise_subset "$subset"
  timeout "${CONV_SWEEP_S:-330}" ./build/tuner/cuop-tune sweep "$subset" --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  ./build/tuner/cuop-tune best --db $DB --op conv2d --format markdown >"$OUT/best-depthwise.md" 2>&1
  cat "$OUT/best-depthwise.md"
  cp $DB "$OUT/h200-depthwise.db"
  step "results/ updated with the sweep"
  RESULTS=/tmp/cuop-results
  rm -rf "$RESULTS" && cp -r results "$RESULTS"
  ./build/tuner/cuop-tune export --db $DB --op conv2d --out "$RESULTS" --update 2>&1 | tee -a "$log" || exit 1
  cp "$RESULTS/conv2d/nvidia-h200.json" "$OUT/conv2d-nvidia-h200.json"
  build cuop_gpu_tests conv_app conv_bench
  ./build/examples/conv_app 2>&1 | tail -3 | tee -a "$log"
  ./build/tests/cuop_gpu_tests --gtest_filter='*conv*dispatch*' 2>&1 | grep -E "^\[ +(PASSED|FAILED|SKIPPED) " | tee -a "$log"
  step "cuop::conv2d vs cuDNN heuristic vs torch"
  timeout "${SIDE_S:-300}" python3 scripts/conv_vs_torch.py build "$subset" >"$OUT/depthwise-h200.md" 2>>"$log"
  cat "$OUT/depthwise-h200.md"
  ;;
depthwise-side)
  subset=/tmp/depthwise-mma.yaml
  write_depthwise_subset "$subset"
  build conv_app conv_bench
  ./build/examples/conv_app 2>&1 | tail -3 | tee -a "$log"
  step "cuop::conv2d vs cuDNN heuristic vs torch, depthwise problems"
  timeout "${SIDE_S:-300}" python3 scripts/conv_vs_torch.py build "$subset" >"$OUT/depthwise-h200.md" 2>>"$log"
  cat "$OUT/depthwise-h200.md"
  ;;
*) echo "usage: h200-conv.sh sweep|side|depthwise|depthwise-side" >&2; exit 2 ;;
esac
step "done"
