#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang with ASan + UBSan, in build-fuzz/) and runs each
# for SECONDS (default 60), one after the other, with leak checking on (docs/ci.md, Fuzzing).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     TARGET: spec, results, compare (default: all three)
#
# Exits 1 when a target crashed, leaked, timed out or ran out of memory, after printing the
# reproducer's path; 0 when every target ran its time clean. Environment:
#   FUZZ_BUILD_DIR   build folder (build-fuzz); its fuzz/ keeps the corpora between runs,
#                    fuzz/artifacts/<target>/ the reproducers, fuzz/logs/<target>.log the output
#   FUZZ_KEEP_GOING  1: fork mode, which goes on after a crash to find more in the time given
#                    (the long run); default: stop at the first, as CI does
#   FUZZ_TIMEOUT     seconds one input may take before it counts as a hang (10)
#   JOBS             build parallelism (nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="/usr/local/cuda/bin:$PATH"

seconds=${1:-60}
[[ $# -gt 0 ]] && shift
targets=("$@")
((${#targets[@]})) || targets=(spec results compare)
for t in "${targets[@]}"; do
  case "$t" in spec | results | compare) ;; *)
    echo "fuzz: error: unknown target \"$t\" (spec, results, compare)" >&2
    exit 2
    ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: error: SECONDS must be a positive integer, got \"$seconds\"" >&2
  exit 2
fi

./scripts/fuzz-build.sh "${targets[@]/#/fuzz_}"
build=${FUZZ_BUILD_DIR:-build-fuzz}

work="$build/fuzz"
rm -rf "$work/seeds"
python3 tests/fuzz/seeds.py "$work/seeds" >/dev/null

# Leaks are findings (ASan's LeakSanitizer); UBSan stops at its first report (the build does not
# recover) and says where. Memory: libFuzzer's own RSS check prints a heap profile before it
# writes the reproducer, and that profile can hang on a large heap; ASan's hard limit, below
# libFuzzer's, stops the process first through the death callback, which writes the input as a
# crash-* reproducer.
rss_mb=2048
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1:hard_rss_limit_mb=$rss_mb${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# fuzz_compare writes each input to a file in TMPDIR; one a crash left behind stays in here.
export TMPDIR="$root/$work/tmp"
mkdir -p "$TMPDIR"

declare -A max_len=([spec]=16384 [results]=32768 [compare]=32768)
declare -A dict=([spec]=tests/fuzz/spec.dict [results]=tests/fuzz/results.dict [compare]=tests/fuzz/results.dict)
mode=()
[[ "${FUZZ_KEEP_GOING:-0}" == 1 ]] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)

hang_grace=$((2 * ${FUZZ_TIMEOUT:-10} + 60))
failed=0
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t" artifacts="$work/artifacts/$t" log="$work/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  before=$(ls "$artifacts" | sort)
  echo "fuzz: $t for $seconds s (log: $log)"
  rc=0
  # The corpus folder comes first: libFuzzer adds what it finds there; the seeds are read only.
  # libFuzzer checks its time between inputs and cannot stop a process that hangs in its own
  # handlers, so `timeout` bounds the whole run: exit code 124 or 137 is a hang, a finding.
  (cd "$work" && timeout -k 30 "$((seconds + hang_grace))" \
    "$root/$build/tests/fuzz/fuzz_$t" "${mode[@]}" -max_total_time="$seconds" \
    -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=$((rss_mb + 512)) -malloc_limit_mb=$rss_mb \
    -max_len="${max_len[$t]}" \
    -dict="$root/${dict[$t]}" -artifact_prefix="$root/$artifacts/" -print_final_stats=1 \
    "$root/$corpus" "$root/$work/seeds/$t") >"$log" 2>&1 || rc=$?
  new=$(comm -13 <(echo "$before") <(ls "$artifacts" | sort) | grep -E '^(crash|leak|timeout|oom)-' || true)
  # Executions: the final stats, or in fork mode the last status line's count.
  execs=$(grep -oE '^stat::number_of_executed_units: [0-9]+' "$log" | awk '{print $2}' | tail -1 || true)
  [[ -z "$execs" ]] && execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  if [[ $rc -ne 0 || -n "$new" ]]; then
    failed=1
    why="exit code $rc"
    [[ $rc -eq 124 || $rc -eq 137 ]] &&
      why="hung: killed $hang_grace s past its time; the input it was on is not known"
    echo "fuzz: $t: FAILED ($why, ${execs:-?} executions); the end of its log:" >&2
    grep -vE '^#[0-9]+.*(NEW|REDUCE|pulse)' "$log" | tail -n 40 >&2
    for a in $new; do
      echo "fuzz: $t: reproducer $artifacts/$a (run: $build/tests/fuzz/fuzz_$t $artifacts/$a)" >&2
    done
  else
    echo "fuzz: $t: ok (${execs:-?} executions, no crash, leak or timeout)"
  fi
done
exit $failed
