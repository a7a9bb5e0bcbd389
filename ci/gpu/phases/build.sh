# shellcheck shell=bash disable=SC2154  # log, tune, JOBS, ...: set by ci/gpu/run.sh, which sources this
# ci/gpu/run.sh's phases that build and test: build, tests, gpu-tests, apps, interrupt, compat.

phase_build() {
  local archs="${CUDA_ARCHS:-$(gpu_archs)}" targets=()
  [[ $# -gt 0 ]] && targets=(--target "$@")
  step "configure $BUILD_DIR: CMAKE_CUDA_ARCHITECTURES=$archs, results $RESULTS"
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    -DCUOP_RESULTS_DIR="$RESULTS" ${CUOP_CMAKE_ARGS:-} >>"$log" 2>&1 || { tail -30 "$log"; fail "configure failed"; }
  grep -E "cuDNN" "$log" | tail -1
  step "build ${*:-everything}"
  local start=$SECONDS
  cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}" >>"$log" 2>&1 ||
    { grep -E "error|FAILED" "$log" | head -40; fail "build failed (log: $log)"; }
  step "built in $((SECONDS - start)) s"
}

phase_tests() {
  require_build
  local out rc
  out=$(fresh "$RUN_OUT/tests" txt)
  step "ctest $* (output: $out)"
  (cd "$BUILD_DIR" && ctest --output-on-failure "$@") >"$out" 2>&1
  rc=$?
  grep -E "tests passed|tests failed|\((Failed|Timeout|Skipped)\)|Not Run" "$out" | tail -20
  grep -B2 -A25 -E "^\[  FAILED  \]" "$out" | head -80
  echo "tests: exit $rc" | tee -a "$log"
  return "$rc"
}

phase_gpu_tests() {
  local filter="${1:-}" out rc rc2=0
  if [[ -z "$filter" ]]; then
    build_targets cuop_gpu_tests cuop_gpu_isolated_tests
    out=$(fresh "$RUN_OUT/gpu-tests" txt)
    step "every GPU test, then the isolated ones (output: $out)"
    "$BUILD_DIR/tests/cuop_gpu_tests" >"$out" 2>&1
    rc=$?
    "$BUILD_DIR/tests/cuop_gpu_isolated_tests" >>"$out" 2>&1 || rc2=$?
    ((rc2 > rc)) && rc=$rc2
    grep -E "^\[  (FAILED|SKIPPED|PASSED) |tests ran" "$out" | sort | uniq -c | sort -rn | head -40
  else
    build_targets cuop_gpu_tests
    out=$(fresh "$RUN_OUT/gpu-tests-$(slug "$filter")" txt)
    step "GPU tests $filter (output: $out)"
    "$BUILD_DIR/tests/cuop_gpu_tests" --gtest_filter="$filter" >"$out" 2>&1
    rc=$?
    grep -E "^\[ +(PASSED|FAILED|SKIPPED) |tests ran|Failure|first bad|Which is|max error" "$out" | head -60
  fi
  echo "gpu-tests: exit $rc" | tee -a "$log"
  return "$rc"
}

phase_apps() {
  local apps=("$@") app rc status=0
  [[ ${#apps[@]} -gt 0 ]] || apps=(softmax_app gemm_app conv_app)
  build_targets "${apps[@]}"
  for app in "${apps[@]}"; do
    step "examples/$app"
    "$BUILD_DIR/examples/$app" 2>&1 | tee -a "$log"
    rc=${PIPESTATUS[0]}
    echo "$app: exit $rc" | tee -a "$log"
    ((rc > status)) && status=$rc
  done
  return "$status"
}

# A sweep stopped by SIGINT keeps what it measured, and the sweep run again measures only the rest.
phase_interrupt() {
  local after="${1:-95}" db="$RUN_OUT/interrupt.db" pid rc
  build_targets cuop-tune
  rm -f "$db" "$db-wal" "$db-shm"
  step "a softmax sweep interrupted by SIGINT after $after s, then resumed"
  "$tune" sweep configs/softmax.yaml --db "$db" --cache "$BUILD_DIR/interrupt-cache" -j "$JOBS" >"$RUN_OUT/interrupt-1.txt" 2>&1 &
  pid=$!
  sleep "$after"
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  echo "first sweep: exit $rc ($(tail -1 "$RUN_OUT/interrupt-1.txt"))" | tee -a "$log"
  "$tune" sweep configs/softmax.yaml --db "$db" --cache "$BUILD_DIR/interrupt-cache" -j "$JOBS" 2>&1 | tail -1 | tee -a "$log"
  "$tune" best --db "$db" | head -4
}

# Builds beside BUILD_DIR, one per set of architectures, run on this GPU (docs/ci.md,
# "Compatibility proven on the H200"). By default sm_80 SASS + compute_80 PTX (the GPU tests and
# the examples, through the driver's JIT on a newer GPU), and sm_100a SASS only (each example must
# exit 1 with the library's "no kernel image" status). `compat native "75;86"`: the GPU's own
# portable table, and a consumer's list served here through compute_86 PTX by the sm_86 table.
phase_compat() {
  local apps=(softmax_app gemm_app conv_app) table="$RUN_OUT/compat.md" rc
  export CUDA_CACHE_PATH="${CUDA_CACHE_PATH:-$BUILD_DIR/jit-cache}" CUDA_CACHE_MAXSIZE=4294967296
  printf '| build | what | result |\n| --- | --- | --- |\n' >"$table"
  compat_build() {  # dir, architectures, targets...
    local dir=$1 archs=$2
    shift 2
    step "configure + build $dir (CMAKE_CUDA_ARCHITECTURES=$archs): $*"
    # shellcheck disable=SC2086
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs" \
      -DCUOP_RESULTS_DIR="$RESULTS" ${CUOP_CMAKE_ARGS:-} >>"$log" 2>&1 || { tail -20 "$log"; return 1; }
    cmake --build "$dir" -j "$JOBS" --target "$@" >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -20; return 1; }
    cuobjdump --list-elf --list-ptx "$dir/kernels/libcuop_kernels.a" 2>/dev/null |
      grep -oE "sm_[0-9]+a?|compute_[0-9]+a?" | sort | uniq -c | tee -a "$log"
  }
  compat_apps() {  # dir, label, key (for file names)
    local app
    for app in "${apps[@]}"; do
      "$1/examples/$app" >"$RUN_OUT/compat-$3-$app.txt" 2>&1
      rc=$?
      echo "| $2 | examples/$app | exit $rc: $(grep -m1 -iE 'failed|error|ok|max|verified|choice' "$RUN_OUT/compat-$3-$app.txt" | cut -c1-110) |" >>"$table"
    done
  }
  # Each set: CMAKE_CUDA_ARCHITECTURES, ":apps" for the example applications alone (a set whose
  # code this GPU cannot run answers statuses there); the GPU tests otherwise.
  local sets=("$@") set archs key dir label
  ((${#sets[@]})) || sets=(80 100a:apps)
  for set in "${sets[@]}"; do
    archs=${set%:apps}
    key=${archs//;/-}
    dir="$BUILD_DIR-$key"
    label="CMAKE_CUDA_ARCHITECTURES=$archs"
    if [[ "$set" == *:apps ]]; then
      compat_build "$dir" "$archs" "${apps[@]}" && compat_apps "$dir" "$label" "$key"
      continue
    fi
    compat_build "$dir" "$archs" cuop_gpu_tests "${apps[@]}" || continue
    grep -E "cuop: kernels and dispatch tables|cuop-tune emit: CUDA architecture" "$log" | tail -4 | tee -a "$RUN_OUT/compat-tables.txt"
    step "GPU tests, $label"
    "$dir/tests/cuop_gpu_tests" >"$RUN_OUT/compat-$key-gpu-tests.txt" 2>&1
    rc=$?
    echo "| $label | GPU tests | exit $rc: $(grep -E "^\[  (PASSED|FAILED)  \]|tests ran" "$RUN_OUT/compat-$key-gpu-tests.txt" | tr '\n' ' ') |" >>"$table"
    compat_apps "$dir" "$label" "$key"
  done
  cat "$table"
}
