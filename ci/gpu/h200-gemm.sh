#!/usr/bin/env bash
# The GEMM (and softmax) device run, in phases that fit the device's 10-minute calls; run them
# back to back on the same warm machine (the build folder and /tmp/cuop-h200.db carry over):
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh build     configure, build (sm_90a), GPU + CPU tests
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh sweep     softmax + GEMM (bf16) sweeps, export
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh compare   rebuild against the results, example,
#                                                         cuop vs cuBLASLt vs torch tables
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh side      build against the committed results, GPU
#                                                         tests, gemm and softmax side-by-side tables
#   SEED_DB=<bf16 db> CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh f16    f16 half, export both,
#                                                         rebuild, side-by-side tables
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh decode    build, GEMM GPU tests, bf16 sweep of the
#                                                         decode problems (m <= 64), per-family table
#                                                         (CONFIG=<yaml> sweeps another file, e.g. a
#                                                         probe; SKIP_TESTS=1 skips the tests)
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh odd       build, GEMM GPU tests (SKIP_TESTS=1: none),
#                                                         sweep of the odd-K problems ($ODD, both dtypes),
#                                                         export --update over the committed results,
#                                                         rebuild, side-by-side tables
#   CUOP_GIT_REV=<rev> bash ci/gpu/h200-gemm.sh table     build gemm_bench against the committed
#                                                         results, side-by-side table of $SHAPES
#                                                         (FULL=1: every bf16 problem) with the B read
#                                                         floor of the decode shapes; no tests
#                                                         (TABLE_SHAPES=MxNxK,... other shapes; REPS=N
#                                                         N randomly interleaved repetitions, medians;
#                                                         MIN_TIME=S GPU seconds a benchmark, 0.2)
# Everything worth keeping goes to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
log="$OUT/log-${1:-all}.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
DB=/tmp/cuop-h200.db
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
tune=./build/tuner/cuop-tune
# The GEMM GPU tests ($TEST_FILTER, default every GEMM and cuBLASLt one) unless SKIP_TESTS=1.
gemm_gpu_tests() {
  [[ "${SKIP_TESTS:-0}" == 1 ]] && return
  step "GEMM GPU tests"
  timeout "${TESTS_S:-150}" ./build/tests/cuop_gpu_tests --gtest_filter="${TEST_FILTER:-*gemm*:*cublaslt*}" >"$OUT/gemm-tests.txt" 2>&1
  echo "tests exit $?" | tee -a "$log"
  grep -E "^\[ +(OK|PASSED|FAILED) |tests ran" "$OUT/gemm-tests.txt" | tail -40
}

SHAPES="1x4096x4096,1x28672x8192,1x8192x28672,16x4096x4096,16x28672x8192,64x8192x8192,128x4096x4096,512x28672x8192,2048x8192x8192,4096x4096x4096,4096x1024x4096,16384x4096x4096,127x1031x4093,1000x1000x1000,4097x4097x4097,8192x8192x8192"
only=$(echo "$SHAPES" | sed 's/\([0-9x]*\)/gemm_bf16_\1/g')
if [[ "${FULL:-0}" == 1 ]]; then  # every bf16 problem of configs/gemm.yaml
  only=gemm_bf16_
  SHAPES=configs/gemm.yaml
fi

case "${1:-}" in
quick)  # one call: build, GEMM tests, a GEMM sweep over $SHAPES, export, rebuild, compare
        # (COMPARE=0 stops after the export)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 --target cuop-tune cuop_gpu_tests gemm_app gemm_bench >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  step "GEMM GPU tests"
  [[ "${SKIP_TESTS:-0}" == 1 ]] || timeout 90 ./build/tests/cuop_gpu_tests --gtest_filter='*gemm*:*cublaslt*' >"$OUT/gemm-tests.txt" 2>&1
  grep -E "^\[  (PASSED|FAILED) |tests ran" "$OUT/gemm-tests.txt" | tail -12
  step "gemm sweep ($only)"
  timeout "${GEMM_SWEEP_S:-240}" $tune sweep configs/gemm.yaml --only "$only" --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  tail -22 "$log"
  $tune best --db $DB --op gemm --format markdown >"$OUT/best-gemm.md" 2>&1
  python3 scripts/gemm_families.py $DB >"$OUT/gemm-families.md" 2>&1
  $tune export --db $DB --op gemm --out "$OUT/results" >>"$log" 2>&1
  cp -r results/softmax "$OUT/results/" 2>/dev/null
  cp $DB "$OUT/h200.db"
  cat "$OUT/gemm-families.md"
  [[ "${COMPARE:-1}" == 1 ]] || { step "done (COMPARE=0: no rebuild, no side-by-side table)"; exit 0; }
  step "rebuild against the new results"
  cmake -S . -B build -DCUOP_RESULTS_DIR="$OUT/results" >>"$log" 2>&1
  cmake --build build -j16 --target gemm_app gemm_bench >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | tail -30; exit 1; }
  ./build/examples/gemm_app 2>&1 | tee -a "$log"
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul"
  timeout 240 python3 scripts/gemm_vs_torch.py build "$SHAPES" --dtype bf16 >"$OUT/gemm-h200.md" 2>>"$log"
  cat "$OUT/gemm-h200.md"
  ;;
decode)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 --target cuop-tune cuop_gpu_tests >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  gemm_gpu_tests
  step "decode sweep (${CONFIG:-configs/gemm.yaml})"
  timeout "${GEMM_SWEEP_S:-240}" $tune sweep "${CONFIG:-configs/gemm.yaml}" --only "${ONLY:-gemm_bf16_1x,gemm_bf16_16x,gemm_bf16_64x}" --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  tail -8 "$log"
  python3 scripts/gemm_families.py $DB >"$OUT/gemm-families.md" 2>&1
  cat "$OUT/gemm-families.md"
  $tune best --db $DB --op gemm --format markdown >"$OUT/best-gemm.md" 2>&1
  cp $DB "$OUT/h200.db"
  ;;
odd)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  ODD="${ODD:-127x1031x4093,4097x4097x4097,4096x4096x4093}"
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 --target cuop-tune cuop_gpu_tests gemm_app gemm_bench >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  gemm_gpu_tests
  step "sweep ($ODD, bf16 and f16)"
  only=$(echo "$ODD" | sed 's/\([0-9x]*\)/gemm_bf16_\1,gemm_f16_\1/g')
  timeout "${GEMM_SWEEP_S:-200}" $tune sweep configs/gemm.yaml --only "$only" --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  grep -E "^gemm_|trials measured" "$log" | tail -6
  cp $DB "$OUT/h200.db"
  rm -rf /tmp/odd-results && cp -r results /tmp/odd-results
  $tune export --db $DB --op gemm --out /tmp/odd-results --update >>"$log" 2>&1 || { echo "export failed"; tail -5 "$log"; exit 1; }
  step "rebuild against the updated results"
  cmake -S . -B build -DCUOP_RESULTS_DIR=/tmp/odd-results >>"$log" 2>&1
  cmake --build build -j16 --target gemm_app gemm_bench cuop_gpu_tests >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | tail -30; exit 1; }
  step "dispatch tests against the updated results"
  timeout 120 ./build/tests/cuop_gpu_tests --gtest_filter='*gemm_dispatch*' >"$OUT/gemm-dispatch-tests.txt" 2>&1
  echo "dispatch tests exit $?" | tee -a "$log"
  grep -E "^\[ +(OK|PASSED|FAILED) " "$OUT/gemm-dispatch-tests.txt" | tail -8
  for dt in bf16 f16; do
    step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul ($dt)"
    timeout 100 python3 scripts/gemm_vs_torch.py build "${SIDE:-$ODD}" --dtype $dt >"$OUT/gemm-odd-$dt.md" 2>>"$log"
    cat "$OUT/gemm-odd-$dt.md"
  done
  ;;
build)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  step "tests"
  (cd build && ctest -j4 --output-on-failure --timeout 300) >>"$log" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|\(Timeout\)" "$log" | tail -20
  grep -B2 -A25 -E "^\[  FAILED  \]" "$log" | head -80
  ;;
sweep)
  step "softmax sweep"
  $tune sweep configs/softmax.yaml --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  tail -14 "$log"
  step "gemm sweep (bf16)"
  timeout "${GEMM_SWEEP_S:-420}" $tune sweep configs/gemm.yaml --only gemm_bf16_ --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  tail -75 "$log"
  $tune best --db $DB --op softmax --format markdown >"$OUT/best-softmax.md" 2>&1
  $tune best --db $DB --op gemm --format markdown >"$OUT/best-gemm.md" 2>&1
  python3 scripts/gemm_families.py $DB >"$OUT/gemm-families.md" 2>&1
  $tune export --db $DB --op softmax --out "$OUT/results" >>"$log" 2>&1
  $tune export --db $DB --op gemm --out "$OUT/results" >>"$log" 2>&1
  cp $DB "$OUT/h200.db"
  ;;
f16)  # one call: resume the bf16 sweep's database ($SEED_DB) with the f16 half, export both,
      # rebuild against them, side-by-side tables (bf16: every problem; f16: $SHAPES)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  [[ -f "${SEED_DB:-}" ]] && cp "$SEED_DB" $DB
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 --target cuop-tune gemm_app gemm_bench >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  step "gemm sweep (f16)"
  timeout "${GEMM_SWEEP_S:-180}" $tune sweep configs/gemm.yaml --only gemm_f16_ --db $DB --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
  echo "sweep exit $?" | tee -a "$log"
  grep -E "trials measured" "$log" | tail -1
  python3 scripts/gemm_families.py $DB --only gemm_f16_ >"$OUT/gemm-families-f16.md" 2>&1
  tail -3 "$OUT/gemm-families-f16.md"
  $tune export --db $DB --op gemm --out "$OUT/results" >>"$log" 2>&1
  cp -r results/softmax "$OUT/results/"
  cp $DB "$OUT/h200.db"
  step "rebuild against the new results"
  cmake -S . -B build -DCUOP_RESULTS_DIR="$OUT/results" >>"$log" 2>&1
  cmake --build build -j16 --target gemm_app gemm_bench >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | tail -30; exit 1; }
  ./build/examples/gemm_app 2>&1 | tee -a "$log"
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul (bf16, every problem)"
  timeout "${GEMM_CMP_S:-230}" python3 scripts/gemm_vs_torch.py build configs/gemm.yaml --dtype bf16 >"$OUT/gemm-h200.md" 2>>"$log"
  tail -5 "$OUT/gemm-h200.md"
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul (f16, $SHAPES)"
  timeout 70 python3 scripts/gemm_vs_torch.py build "$SHAPES" --dtype f16 >"$OUT/gemm-h200-f16.md" 2>>"$log"
  tail -5 "$OUT/gemm-h200-f16.md"
  ;;
side)  # one call: build against the committed results/, every GPU test, side-by-side tables
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  ./build/examples/gemm_app 2>&1 | tee -a "$log"
  step "GPU tests"
  (cd build && timeout "${TESTS_S:-150}" ctest -L gpu -j2 --timeout 140 --output-on-failure) >"$OUT/gpu-tests.txt" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Skipped" "$OUT/gpu-tests.txt" | tail -12
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul"
  timeout "${GEMM_CMP_S:-280}" python3 scripts/gemm_vs_torch.py build "$SHAPES" --dtype bf16 >"$OUT/gemm-h200.md" 2>>"$log"
  cat "$OUT/gemm-h200.md"
  step "cuop::softmax vs torch.softmax"
  timeout 90 python3 scripts/softmax_vs_torch.py build >"$OUT/softmax-h200.md" 2>>"$log"
  cat "$OUT/softmax-h200.md"
  ;;
table)  # one call: the committed dispatch table side by side, with the decode shapes' read floor
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1
  step "configure + build"
  # shellcheck disable=SC2086
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build -j16 --target gemm_app gemm_bench >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -40; exit 1; }
  ./build/examples/gemm_app 2>&1 | tee -a "$log"
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul vs the read floor (${DTYPE:-bf16})"
  timeout "${GEMM_CMP_S:-400}" python3 scripts/gemm_vs_torch.py build "${TABLE_SHAPES:-$SHAPES}" --dtype "${DTYPE:-bf16}" \
    --repetitions "${REPS:-1}" --min-time "${MIN_TIME:-0.2}" >"$OUT/gemm-table.md" 2>>"$log"
  echo "table exit $?" | tee -a "$log"
  tail -6 "$OUT/gemm-table.md"
  ;;
compare)
  step "rebuild against the new results"
  cmake -S . -B build -DCUOP_RESULTS_DIR="$OUT/results" >>"$log" 2>&1
  cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | tail -30; exit 1; }
  ./build/examples/gemm_app 2>&1 | tee -a "$log"
  ./build/examples/softmax_app 2>&1 | tee -a "$log"
  (cd build && ctest -L gpu -j2 --timeout 300) >>"$log" 2>&1; grep -E "tests passed|tests failed" "$log" | tail -1
  step "cuop::softmax vs torch.softmax"
  python3 scripts/softmax_vs_torch.py build >"$OUT/softmax-h200.md" 2>>"$log"
  cat "$OUT/softmax-h200.md"
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul"
  python3 scripts/gemm_vs_torch.py build configs/gemm.yaml --dtype bf16 >"$OUT/gemm-h200.md" 2>>"$log"
  cat "$OUT/gemm-h200.md"
  ;;
*)
  echo "usage: $0 quick|f16|side|decode|odd|table|build|sweep|compare" >&2
  exit 2
  ;;
esac
step "done"
