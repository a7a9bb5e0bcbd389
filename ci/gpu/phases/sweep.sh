# shellcheck shell=bash disable=SC2154  # log, tune, JOBS, ...: set by ci/gpu/run.sh, which sources this
# ci/gpu/run.sh's phases that measure into a database and read it: sweep, export, holdout, report.

phase_sweep() {
  [[ $# -gt 0 ]] || fail "sweep: name a sweep file (or @NAME)"
  local args=() a file out rc
  for a in "$@"; do
    file=$(spec_file "$a") || return 1
    args+=("$file")
  done
  build_targets cuop-tune
  if [[ -n "${SEED_DB:-}" && ! -f "$DB" ]]; then cp "$SEED_DB" "$DB" && chmod u+w "$DB"; fi
  out=$(fresh "$RUN_OUT/sweep" txt)
  step "sweep $* into $DB (output: $out)"
  "$tune" sweep "${args[@]}" --db "$DB" -j "$JOBS" >"$out" 2>&1
  rc=$?
  tail -16 "$out"
  echo "sweep: exit $rc" | tee -a "$log"
  return "$rc"
}

# RUN_OUT/results starts as a copy of RESULTS, so that a library built against it has every op's
# results, and later exports of other ops (or dtypes) land beside this one.
phase_export() {
  local op="${1:-}"
  [[ -n "$op" ]] || fail "export: name an op (softmax, gemm, conv2d)"
  shift
  build_targets cuop-tune
  [[ -d "$RUN_OUT/results" ]] || cp -r "$RESULTS" "$RUN_OUT/results"
  step "export $op from $DB into $RUN_OUT/results $*"
  "$tune" best --db "$DB" --op "$op" --format markdown >"$RUN_OUT/best-$op.md" 2>&1
  cat "$RUN_OUT/best-$op.md"
  if [[ "$op" == gemm ]]; then
    python3 scripts/gemm_families.py "$DB" >"$RUN_OUT/gemm-families.md" 2>&1
    tail -4 "$RUN_OUT/gemm-families.md"
  fi
  "$tune" export --db "$DB" --op "$op" --out "$RUN_OUT/results" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || fail "export failed"
}

phase_holdout() {
  local ops=("$@") op rc status=0
  [[ ${#ops[@]} -gt 0 ]] || ops=(softmax gemm conv2d)
  build_targets cuop-tune cuop-holdout-runner
  for op in "${ops[@]}"; do
    step "holdout $op: N ${N:-100}, seed ${SEED:-20261205}$([[ "${AA:-0}" == 1 ]] && echo ", A/A")"
    CUOP_HOLDOUT_AA="${AA:-0}" PYTHONUNBUFFERED=1 python3 scripts/holdout.py run "$BUILD_DIR" "configs/distributions/$op.yaml" \
      --n "${N:-100}" --seed "${SEED:-20261205}" --json "$RUN_OUT/holdout-$op.json" >"$RUN_OUT/holdout-$op.txt" 2>&1
    rc=$?
    echo "holdout $op: exit $rc" | tee -a "$log"
    ((rc > status)) && status=$rc
  done
  phase_report "${ops[@]}"
  return "$status"
}

# The summary tables of RUN_OUT: each op's holdout summary (OPs given: those; else every one
# there), the gate runs' summary lines, the compatibility table.
phase_report() {
  local ops=("$@") f op
  if [[ ${#ops[@]} -eq 0 ]]; then
    for f in "$RUN_OUT"/holdout-*.txt; do
      [[ -e "$f" ]] && f=${f##*/holdout-} && ops+=("${f%.txt}")
    done
  fi
  for op in "${ops[@]}"; do
    echo "--- holdout $op"
    grep -A6 "^| group" "$RUN_OUT/holdout-$op.txt" 2>/dev/null || tail -5 "$RUN_OUT/holdout-$op.txt" 2>/dev/null
  done
  if [[ -f "$RUN_OUT/summary.txt" ]]; then
    echo "--- gate runs"
    cat "$RUN_OUT/summary.txt"
  fi
  if [[ -f "$RUN_OUT/compat.md" ]]; then
    echo "--- compatibility"
    cat "$RUN_OUT/compat.md"
  fi
  return 0
}
