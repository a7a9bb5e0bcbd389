#!/usr/bin/env bash
# One device call: the softmax sweep restricted to the problems of configs/softmax.yaml with COLS
# columns (every candidate), the committed results updated with it (`export --update`: those
# problems replaced whole, in $OUT/results), a rebuild against the update, the softmax GPU tests
# and the side-by-side table against torch. Merge $OUT/one-shape.db into the committed
# tests/data/store/h200-softmax-results.db (rejections deleted, journal_mode=delete) before
# committing $OUT/results: cli.committed_results_are_fresh_exports_of_their_database checks both.
# Usage: CUOP_GIT_REV=<rev> bash ci/gpu/probes/sweep_one_shape.sh COLS
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
cols=${1:?usage: sweep_one_shape.sh COLS}
OUT="${OUT:-/tmp/cuop-out}"; mkdir -p "$OUT"
args=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" PATH="/usr/local/cuda/bin:$PATH"
spec=/tmp/softmax-$cols.yaml
python3 - configs/softmax.yaml "$spec" "$cols" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
spec["problems"] = [p for p in spec["problems"] if p["cols"] == int(sys.argv[3])]
if not spec["problems"]: sys.exit(f"no problem with {sys.argv[3]} columns")
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
PY
# shellcheck disable=SC2086
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $args >/dev/null || exit 1
cmake --build build -j16 --target cuop-tune >/tmp/build.log 2>&1 || { grep -E "error|FAILED" /tmp/build.log | head; exit 1; }
db=/tmp/one-shape.db
timeout "${SWEEP_S:-150}" ./build/tuner/cuop-tune sweep "$spec" --db $db --cache /tmp/cuop-cache -j16 >"$OUT/sweep.txt" 2>&1
echo "sweep exit $?"; tail -5 "$OUT/sweep.txt"
results=/tmp/one-shape-results
rm -rf $results && cp -r results $results
./build/tuner/cuop-tune export --db $db --op softmax --out $results --update || exit 1
mkdir -p "$OUT/results/softmax" && cp $results/softmax/*.json "$OUT/results/softmax/" && cp $db "$OUT/"
cmake -S . -B build -DCUOP_RESULTS_DIR=$results >/dev/null
cmake --build build -j16 >/tmp/build2.log 2>&1 || { grep -E "error|FAILED" /tmp/build2.log | head; exit 1; }
./build/tests/cuop_gpu_tests --gtest_filter='*softmax*' >"$OUT/gpu-softmax-tests.txt" 2>&1
echo "softmax GPU tests exit $?"; grep -E "^\[  (PASSED|FAILED) " "$OUT/gpu-softmax-tests.txt"
python3 scripts/softmax_vs_torch.py build >"$OUT/softmax-h200.md" 2>"$OUT/side.err"; echo "side exit $?"
cat "$OUT/softmax-h200.md"
