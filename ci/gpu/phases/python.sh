# shellcheck shell=bash disable=SC2154  # log, JOBS, BUILD_DIR, RUN_OUT: set by ci/gpu/run.sh, which sources this
# ci/gpu/run.sh's phase for the PyTorch package (docs/python.md): python.

# pip installs the package into PYTHON's environment (a torch with CUDA; default python3),
# building in BUILD_DIR (configured by the build phase, so only the ops' library is compiled),
# then runs the Python tests and the model timing table (RUN_OUT/python-tests.txt,
# RUN_OUT/python-bench.md; REPS forwards a median, 20). `python tests` or `python bench`: one;
# `python install`: the install alone.
phase_python() {
  local py="${PYTHON:-python3}" what="${1:-all}" rc=0 out
  require_build
  "$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || fail "$py has no torch that sees a GPU"
  step "pip install --no-build-isolation . ($py, build folder $BUILD_DIR)"
  CUOP_BUILD_DIR="$BUILD_DIR" MAX_JOBS="$JOBS" "$py" -m pip install --no-build-isolation --no-deps --no-index \
    --force-reinstall . >>"$log" 2>&1 || { tail -30 "$log"; fail "pip install failed (log: $log)"; }
  if [[ "$what" == all || "$what" == tests ]]; then
    out=$(fresh "$RUN_OUT/python-tests" txt)
    step "Python tests (output: $out)"
    (cd "$RUN_OUT" && "$py" -m unittest discover -s "$OLDPWD/python/tests" -v) >"$out" 2>&1 || rc=$?
    grep -E "^(FAIL|ERROR):|^Ran |^OK|^FAILED" "$out" | tee -a "$log"
  fi
  if [[ "$what" == all || "$what" == bench ]]; then
    out=$(fresh "$RUN_OUT/python-bench" md)
    step "model blocks, torch's ops against cuop's (output: $out)"
    (cd python/tests && "$py" bench_models.py --reps "${REPS:-20}" --out "$out") 2>&1 | tail -9 | tee -a "$log"
    ((PIPESTATUS[0] == 0)) || rc=1
  fi
  return "$rc"
}
