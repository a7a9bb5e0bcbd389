#!/usr/bin/env bash
# One device call for the depthwise tensor-core stage (issue 4): build (sm_90a), the depthwise GPU
# tests, a sweep of configs/conv.yaml's 7x7 and 31x31 NHWC depthwise problems with its stage 3
# candidates only (the stage that wins them), the committed conv results updated with it
# (`export --update`: those problems replaced whole), a rebuild against the update, the conv
# dispatch tests and the side-by-side table against cuDNN's heuristic and torch for those
# problems. Run it as `CUOP_GIT_REV=<rev> bash ci/gpu/h200-depthwise.sh`; everything worth keeping
# goes to $OUT (conv2d-nvidia-h200.json is the updated results file to commit).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
log="$OUT/log-depthwise.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
DB=/tmp/cuop-h200-depthwise.db
SUBSET=/tmp/depthwise-mma.yaml
UPDATED=/tmp/cuop-results
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1

build() {  # $1: results folder the dispatch table is emitted from; then the targets
  local results=$1
  shift
  step "configure + build $* (results: $results)"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DCUOP_RESULTS_DIR="$results" $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 --target "$@" >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
}

build "$PWD/results" cuop-tune cuop_gpu_tests
step "depthwise GPU tests"
./build/tests/cuop_gpu_tests --gtest_filter='*depthwise*' >"$OUT/depthwise-tests.txt" 2>&1
echo "tests exit $?" | tee -a "$log"
grep -E "^\[ +(PASSED|FAILED|SKIPPED) |Failure|first bad|Which is" "$OUT/depthwise-tests.txt" | head -30

step "sweep: the 7x7 and 31x31 NHWC depthwise problems, stage 3"
python3 - configs/conv.yaml "$SUBSET" <<'EOF'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
spec["problems"] = [p for p in spec["problems"]
                    if p.get("groups", 1) > 1 and p.get("layout", "nhwc") == "nhwc" and p["r"] in (7, 31)]
spec["candidates"] = [c for c in spec["candidates"] if 3 in c["params"].get("stage", [])]
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
EOF
timeout "${SWEEP_S:-330}" ./build/tuner/cuop-tune sweep "$SUBSET" --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
echo "sweep exit $?" | tee -a "$log"
grep -E "trials measured" "$log" | tail -1
./build/tuner/cuop-tune best --db $DB --op conv2d --format markdown >"$OUT/best-depthwise.md" 2>&1
cat "$OUT/best-depthwise.md"
cp $DB "$OUT/h200-depthwise.db"

step "results/ updated with the sweep"
rm -rf "$UPDATED" && cp -r results "$UPDATED"
./build/tuner/cuop-tune export --db $DB --op conv2d --out "$UPDATED" --update 2>&1 | tee -a "$log" || exit 1
cp "$UPDATED/conv2d/nvidia-h200.json" "$OUT/conv2d-nvidia-h200.json"

build "$UPDATED" cuop_gpu_tests conv_app conv_bench
./build/examples/conv_app 2>&1 | tail -3 | tee -a "$log"
./build/tests/cuop_gpu_tests --gtest_filter='*conv*dispatch*' 2>&1 | grep -E "^\[ +(PASSED|FAILED|SKIPPED) " | tee -a "$log"
step "cuop::conv2d vs cuDNN heuristic vs torch"
timeout 200 python3 scripts/conv_vs_torch.py build "$SUBSET" >"$OUT/depthwise-h200.md" 2>>"$log"
cat "$OUT/depthwise-h200.md"
step "done"
