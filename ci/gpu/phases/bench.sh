# shellcheck shell=bash disable=SC2154  # log, tune, JOBS, ...: set by ci/gpu/run.sh, which sources this
# ci/gpu/run.sh's side-by-side phases: the dispatched ops against their baselines and torch, as
# built (build against RUN_OUT/results with `RESULTS=... ci/gpu/run.sh build` to bench an export).
# Each table goes to RUN_OUT/bench-<op>[-N].md and is printed.

phase_bench_softmax() {
  local out
  build_targets softmax_bench
  out=$(fresh "$RUN_OUT/bench-softmax" md)
  step "cuop::softmax vs torch.softmax, read flush, then write flush ($out)"
  python3 scripts/softmax_vs_torch.py "$BUILD_DIR" >"$out" 2>>"$log" || { tail -5 "$log"; fail "softmax_vs_torch.py failed"; }
  python3 scripts/softmax_vs_torch.py "$BUILD_DIR" --dirty-flush >"${out%.md}-dirty.md" 2>>"$log" ||
    { tail -5 "$log"; fail "softmax_vs_torch.py --dirty-flush failed"; }
  cat "$out" "${out%.md}-dirty.md"
}

phase_bench_gemm() {
  local shapes="${1:-$GEMM_SHAPES}" out rc
  [[ $# -gt 0 ]] && shift
  [[ "$shapes" == short ]] && shapes=$GEMM_SHAPES
  [[ "$shapes" == full ]] && shapes=configs/gemm.yaml
  build_targets gemm_bench
  out=$(fresh "$RUN_OUT/bench-gemm" md)
  step "cuop::gemm vs cuBLASLt heuristic vs torch.matmul: $shapes $* ($out)"
  python3 scripts/gemm_vs_torch.py "$BUILD_DIR" "$shapes" "$@" >"$out" 2>>"$log"
  rc=$?
  cat "$out"
  echo "bench-gemm: exit $rc" | tee -a "$log"
  return "$rc"
}

phase_bench_conv() {
  local spec out rc
  spec=$(spec_file "${1:-configs/conv.yaml}") || return 1
  build_targets conv_bench
  out=$(fresh "$RUN_OUT/bench-conv" md)
  step "cuop::conv2d vs cuDNN heuristic vs torch: $spec ($out)"
  python3 scripts/conv_vs_torch.py "$BUILD_DIR" "$spec" >"$out" 2>>"$log"
  rc=$?
  cat "$out"
  echo "bench-conv: exit $rc" | tee -a "$log"
  return "$rc"
}

# Needs the PyTorch package installed (the python phase): cuop's LayerNorm, RMSNorm and GroupNorm
# against torch's, on the sweep files' shapes and N (100) validation shapes per op drawn with SEED
# (NORM_OPS narrows the ops).
phase_bench_norm() {
  local out rc
  build_targets cuop-tune
  out=$(fresh "$RUN_OUT/bench-norm" md)
  step "cuop layer_norm, rms_norm, add_rms_norm, group_norm vs torch ($out)"
  python3 scripts/norm_vs_torch.py --cuop-tune "$tune" --n "${N:-100}" --seed "${SEED:-20261206}" --out "$out" \
    --json "${out%.md}.json" --ops "${NORM_OPS:-layernorm,rmsnorm,groupnorm}" 2>>"$log"
  rc=$?
  echo "bench-norm: exit $rc" | tee -a "$log"
  return "$rc"
}
