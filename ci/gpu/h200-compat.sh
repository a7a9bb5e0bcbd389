#!/usr/bin/env bash
# Compatibility proven on the H200 (issue 5 item 6, docs/ci.md):
#   1. a build with only sm_80 code plus compute_80 PTX (CMAKE_CUDA_ARCHITECTURES=80) runs there,
#      through the driver's JIT, and passes the GPU tests and the three example applications;
#   2. a build with only sm_100a code fails there with the library's status "no kernel image for
#      this device" (each example exits 1 and says so), not a crash.
# Usage: CUOP_GIT_REV=<rev> bash ci/gpu/h200-compat.sh    (everything worth keeping goes to $OUT)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
log="$OUT/log-compat.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
export CUDA_CACHE_PATH=/tmp/cuop-jit-cache CUDA_CACHE_MAXSIZE=4294967296
apps=(softmax_app gemm_app conv_app)
table="$OUT/compat-h200.md"
echo "| build | what | result |" >"$table"
echo "| --- | --- | --- |" >>"$table"

build() {  # $1: dir, $2: architectures, rest: targets
  local dir=$1 archs=$2
  shift 2
  step "configure + build $dir (CMAKE_CUDA_ARCHITECTURES=$archs): $*"
  # shellcheck disable=SC2086
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs" $args >>"$log" 2>&1 ||
    { tail -20 "$log"; return 1; }
  cmake --build "$dir" -j16 --target "$@" >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -20; return 1; }
  cuobjdump --list-elf --list-ptx "$dir/kernels/libcuop_kernels.a" 2>/dev/null |
    grep -oE "sm_[0-9]+a?|compute_[0-9]+a?" | sort | uniq -c | tee -a "$log"
}

run_apps() {  # $1: dir, $2: build label
  for app in "${apps[@]}"; do
    timeout 120 "./$1/examples/$app" >"$OUT/$2-$app.txt" 2>&1
    local rc=$?
    echo "| $2 | examples/$app | exit $rc: $(grep -m1 -iE 'failed|error|ok|max|verified|choice' "$OUT/$2-$app.txt" | cut -c1-110) |" >>"$table"
  done
}

if build build-80 80 cuop_gpu_tests "${apps[@]}"; then
  step "GPU tests, sm_80 SASS + compute_80 PTX on sm_90 (JIT)"
  timeout "${TESTS_S:-240}" ./build-80/tests/cuop_gpu_tests >"$OUT/gpu-tests-sm80.txt" 2>&1
  rc=$?
  summary=$(grep -E "^\[  (PASSED|FAILED)  \]|tests ran" "$OUT/gpu-tests-sm80.txt" | tr '\n' ' ')
  echo "| sm_80 + compute_80 PTX | GPU tests | exit $rc: $summary |" >>"$table"
  run_apps build-80 sm_80
fi

if build build-100a 100a "${apps[@]}"; then
  run_apps build-100a sm_100a
fi
step "done"
cat "$table"
