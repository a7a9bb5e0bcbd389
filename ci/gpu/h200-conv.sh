#!/usr/bin/env bash
# The convolution device run (issue 4), one 10-minute call: configure and build (sm_90a; cuDNN
# from the system or, failing that, torch's wheel), the conv GPU tests (depthwise kernels against
# the host reference, the cuDNN back end), then the depthwise sweep of configs/conv.yaml and its
# best table. Everything worth keeping goes to $OUT.
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-conv.sh
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
if [[ -z "${CUDNN_ROOT:-}" ]]; then  # torch's cuDNN wheel, when the system has none
  CUDNN_ROOT=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null) && export CUDNN_ROOT
  [[ -n "${CUDNN_ROOT:-}" ]] && export LD_LIBRARY_PATH="$CUDNN_ROOT/lib:$LD_LIBRARY_PATH"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
step "configure + build"
# shellcheck disable=SC2086
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
grep -E "cuDNN" "$log" | tail -1
cmake --build build -j16 --target cuop-tune cuop_gpu_tests >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
step "conv GPU tests"
timeout "${TESTS_S:-150}" ./build/tests/cuop_gpu_tests --gtest_filter='*conv*:*cudnn*' >"$OUT/conv-tests.txt" 2>&1
echo "tests exit $?" | tee -a "$log"
grep -E "^\[ +(OK|PASSED|FAILED|SKIPPED) |Failure|first bad|Expected|Which is" "$OUT/conv-tests.txt" | head -60
step "conv sweep"
timeout "${CONV_SWEEP_S:-240}" ./build/tuner/cuop-tune sweep configs/conv.yaml --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
echo "sweep exit $?" | tee -a "$log"
tail -14 "$log"
./build/tuner/cuop-tune best --db $DB --op conv2d --format markdown >"$OUT/best-conv.md" 2>&1
cat "$OUT/best-conv.md"
cp $DB "$OUT/h200-conv.db"
step "done"
