# shellcheck shell=bash disable=SC2154  # log, tune, JOBS, ...: set by ci/gpu/run.sh, which sources this
# ci/gpu/run.sh's phases of the measurement engine and the gate (docs/measurement.md): gate-aa,
# gate-inject, race, scaleout. Each gate run leaves its JSON report and log in RUN_OUT and a line
# in RUN_OUT/summary.txt.

# One gate run: NAME, then the gate's arguments.
gate_run() {
  local name="$1" rc
  shift
  "$tune" gate "$@" --format json >"$RUN_OUT/$name.json" 2>"$RUN_OUT/$name.log"
  rc=$?
  python3 - "$RUN_OUT/$name.json" "$name" "$rc" <<'PY' | tee -a "$RUN_OUT/summary.txt"
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
  return "$rc"
}

# A/A: the suite gated against this very build (A B B A), then against that round's database as a
# baseline; the winners' run-to-run spread over both (ci/gpu/winner_spread.py).
phase_gate_aa() {
  [[ $# -gt 0 ]] || fail "gate-aa: name gate suites (configs/gate/*.yaml)"
  local suite name dir
  build_targets cuop-tune
  for suite in "$@"; do
    name=$(basename "$suite" .yaml)
    dir="$RUN_OUT/dbs-$name"
    rm -rf "$dir" && mkdir -p "$dir"
    step "A/A $suite: A B B A against itself"
    gate_run "aa-$name-abba" "$suite" --against "$tune" --db "$dir/gate.db" -j "$JOBS"
    step "A/A $suite: against round 1 as a baseline"
    gate_run "aa-$name-baseline" "$suite" --baseline "$dir/gate.db" --db "$dir/again.db" -j "$JOBS"
  done
  python3 ci/gpu/winner_spread.py "$RUN_OUT"/dbs-* | tee -a "$RUN_OUT/summary.txt"
}

# The calibration kernel (tests/calibration) at 0, 1, 2, 5 and 10% more work (extra_permille) as
# "this build", each gated REPS times against 0: in A B B A rounds (B, the reference, is this binary
# on the suite without extra work, through a wrapper that swaps the suite's path) and against a
# baseline database of 0 measured once. ci/gpu/calibration_table.py RUN_OUT makes the table.
phase_gate_inject() {
  local cal="$BUILD_DIR/gate-inject" src x rep
  build_targets cuop-tune
  rm -rf "$cal" && mkdir -p "$cal"
  src="$PWD/tests/calibration/extra_work_softmax.cuh"
  for x in 0 10 20 50 100; do
    sed -e "s|source: extra_work_softmax.cuh|source: $src|" -e "s/extra_permille: \[0\]/extra_permille: [$x]/" \
      tests/calibration/calibration.yaml >"$cal/extra-$x.yaml"
    # shellcheck disable=SC2016
    printf '#!/usr/bin/env bash\nargs=()\nfor a in "$@"; do [[ "$a" == %s ]] && a=%s; args+=("$a"); done\nexec %s "${args[@]}"\n' \
      "$cal/extra-$x.yaml" "$cal/extra-0.yaml" "$tune" >"$cal/b-$x.sh"
    chmod +x "$cal/b-$x.sh"
  done
  step "baseline database of 0"
  "$tune" sweep "$cal/extra-0.yaml" --db "$cal/base.db" -j "$JOBS" >>"$log" 2>&1
  for rep in $(seq 1 "${REPS:-4}"); do
    for x in 0 10 20 50 100; do
      step "rep $rep, +$x permille: A B B A"
      gate_run "inject-abba-$x-$rep" "$cal/extra-$x.yaml" --against "$cal/b-$x.sh" --db "$cal/g-$x-$rep.db" -j "$JOBS"
      step "rep $rep, +$x permille: against the baseline"
      gate_run "inject-base-$x-$rep" "$cal/extra-$x.yaml" --baseline "$cal/base.db" --db "$cal/b-$x-$rep.db" -j "$JOBS"
    done
  done
  python3 ci/gpu/calibration_table.py "$RUN_OUT"
}

# strategy: race over the whole softmax sweep, compared with the committed (exhaustive) results.
phase_race() {
  local spec db="$RUN_OUT/race.db" start
  spec=$(spec_file @softmax-race) || return 1
  build_targets cuop-tune cuop_gpu_isolated_tests
  rm -f "$db"
  step "race sweep"
  start=$SECONDS
  "$tune" sweep "$spec" --db "$db" -j "$JOBS" >"$RUN_OUT/race.log" 2>&1
  echo "race sweep: exit $?, $((SECONDS - start)) s" | tee -a "$RUN_OUT/summary.txt"
  python3 - "$db" <<'PY' | tee -a "$RUN_OUT/summary.txt"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for status, n, samples in con.execute("select status, count(*), sum(samples) from trials group by status"):
    print(f"  {status}: {n} trials, {samples} samples")
PY
  "$tune" compare results/softmax "$db" --allow-different-env --format markdown >"$RUN_OUT/race-compare.md" 2>>"$RUN_OUT/race.log"
  echo "compare with the committed exhaustive results: exit $?" | tee -a "$RUN_OUT/summary.txt"
  "$tune" best --db "$db" >"$RUN_OUT/race-best.txt" 2>&1
  step "isolated GPU tests"
  "$BUILD_DIR/tests/cuop_gpu_isolated_tests" 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | tee -a "$RUN_OUT/summary.txt"
}

# The isolated GPU tests (gate A/A, faults, crash safety while measuring, --devices), the gate
# against the committed results/, and a --devices all sweep of configs/softmax.yaml compared with
# results/softmax.
phase_scaleout() {
  local start
  build_targets cuop-tune cuop_gpu_isolated_tests
  step "isolated GPU tests"
  "$BUILD_DIR/tests/cuop_gpu_isolated_tests" >"$RUN_OUT/isolated-tests.txt" 2>&1
  echo "isolated GPU tests: exit $?" | tee -a "$RUN_OUT/summary.txt"
  grep -E "^\[  (FAILED|SKIPPED|PASSED|     OK) |^kill " "$RUN_OUT/isolated-tests.txt" | tee -a "$RUN_OUT/summary.txt"
  step "gate against the committed results"
  gate_run gate-results configs/gate/*.yaml --baseline results/ -j "$JOBS"
  step "sweep --devices all of configs/softmax.yaml"
  rm -f "$RUN_OUT/devices.db"
  start=$SECONDS
  "$tune" sweep configs/softmax.yaml --devices all --db "$RUN_OUT/devices.db" >"$RUN_OUT/devices-sweep.log" 2>&1
  echo "devices sweep: exit $?, $((SECONDS - start)) s" | tee -a "$RUN_OUT/summary.txt"
  tail -16 "$RUN_OUT/devices-sweep.log" | tee -a "$RUN_OUT/summary.txt"
  "$tune" compare results/softmax "$RUN_OUT/devices.db" --allow-different-env >"$RUN_OUT/devices-compare.txt" 2>&1
  echo "compare with results/softmax: exit $?" | tee -a "$RUN_OUT/summary.txt"
}
