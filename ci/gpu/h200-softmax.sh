#!/usr/bin/env bash
# One device call: build (sm_90a), run every test including the GPU ones, run the softmax sweep,
# export the results, rebuild the library against them, run the example and the side-by-side
# comparison with torch.softmax. TESTS=softmax runs only the softmax GPU tests instead of every
# test (before the sweep and after the rebuild); SWEEP_S bounds the sweep (400 s by default) and
# the resumed sweep that checks nothing is measured twice gets 60 s, so a sweep cut short is
# finished there only in part; SEED_DB resumes
# from an earlier run's database. ONLY_COLS=<cols> sweeps only the problems with that many columns
# and exports them over a copy of the committed results (`export --update`: those problems
# replaced whole); merge $OUT/h200.db into tests/data/store/h200-softmax-results.db (rejections
# deleted, journal_mode=delete) before committing $OUT/results
# (cli.committed_results_are_fresh_exports_of_their_database checks both). Everything
# worth keeping goes to $OUT. Run it as
# `CUOP_GIT_REV=<rev> bash ci/gpu/h200-softmax.sh` where the tree has no .git, so the revision is
# recorded with every run (CMake reads the variable).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
log="$OUT/log.txt"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }

step "offline dependencies"
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$log" 2>&1

step "configure + build"
# shellcheck disable=SC2086
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | head -30; exit 1; }

if [[ "${TESTS:-all}" == all ]]; then
  step "tests"
  (cd build && ctest -j4 --output-on-failure) >>"$log" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)" "$log" | tail -12
else  # TESTS=softmax: the softmax GPU tests only (to save device time when only they changed)
  step "softmax GPU tests"
  ./build/tests/cuop_gpu_tests --gtest_filter='*softmax*' >"$OUT/gpu-softmax-tests.txt" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/gpu-softmax-tests.txt" | tee -a "$log"
fi

step "sweep"
# SEED_DB: a database of an earlier run to resume from (its trials on this GPU are not measured
# again; another GPU or build is another environment and is measured anew).
[[ -n "${SEED_DB:-}" ]] && cp "$SEED_DB" /tmp/cuop-h200.db && chmod u+w /tmp/cuop-h200.db
spec=configs/softmax.yaml
export_args=(--out "$OUT/results")
if [[ -n "${ONLY_COLS:-}" ]]; then
  spec=/tmp/softmax-$ONLY_COLS.yaml
  python3 - configs/softmax.yaml "$spec" "$ONLY_COLS" <<'PY' || exit 1
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
spec["problems"] = [p for p in spec["problems"] if p["cols"] == int(sys.argv[3])]
if not spec["problems"]: sys.exit(f"no problem of configs/softmax.yaml has {sys.argv[3]} columns")
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
PY
  rm -rf "$OUT/results" && cp -r results "$OUT/results"
  export_args+=(--op softmax --update)
fi
timeout "${SWEEP_S:-400}" ./build/tuner/cuop-tune sweep "$spec" --db /tmp/cuop-h200.db --cache /tmp/cuop-cache -j16 >>"$log" 2>&1
echo "sweep: exit $?" | tee -a "$log"
tail -16 "$log"
step "sweep again: resumes, measures nothing twice"
timeout 60 ./build/tuner/cuop-tune sweep "$spec" --db /tmp/cuop-h200.db --cache /tmp/cuop-cache -j16 2>&1 | tail -1 | tee -a "$log"
./build/tuner/cuop-tune best --db /tmp/cuop-h200.db --format markdown >"$OUT/best.md" 2>&1
./build/tuner/cuop-tune export --db /tmp/cuop-h200.db "${export_args[@]}" >>"$log" 2>&1 || { tail -5 "$log"; exit 1; }

step "rebuild against the new results"
cmake -S . -B build -DCUOP_RESULTS_DIR="$OUT/results" >>"$log" 2>&1
cmake --build build -j16 >>"$log" 2>&1 || { grep -E "error|FAILED" "$log" | tail -30; exit 1; }
./build/examples/softmax_app 2>&1 | tee -a "$log"
if [[ "${TESTS:-all}" == all ]]; then
  (cd build && ctest -L gpu -j2) >>"$log" 2>&1; grep -E "tests passed|tests failed" "$log" | tail -1
else  # the dispatch tests against the new results: the softmax GPU tests again
  ./build/tests/cuop_gpu_tests --gtest_filter='*softmax*' >"$OUT/gpu-softmax-tests-rebuilt.txt" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/gpu-softmax-tests-rebuilt.txt" | tee -a "$log"
fi

step "cuop::softmax vs torch.softmax"
python3 scripts/softmax_vs_torch.py build >"$OUT/softmax-h200.md" 2>>"$log"
python3 scripts/softmax_vs_torch.py build --dirty-flush >"$OUT/softmax-h200-dirty.md" 2>>"$log"
cat "$OUT/softmax-h200.md" "$OUT/softmax-h200-dirty.md"
cp /tmp/cuop-h200.db "$OUT/h200.db"
step "done"
