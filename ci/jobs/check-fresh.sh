#!/usr/bin/env bash
# CPU job `check-fresh`: the committed generated data is fresh, else it fails with a diff.
# Nothing generated from results/ is committed (the dispatch tables are emitted at build time), so:
#   1. `cuop-tune emit` from results/ is deterministic: two emits into empty folders are
#      byte-identical, and a third into the first folder rewrites nothing;
#   2. those files are byte for byte the ones the build generated (BUILD_DIR/kernels/generated),
#      when the build emits from this results/;
#   3. results/softmax/nvidia-h200.json is the export of its committed database
#      (tests/data/store/h200-softmax-results.db);
#   4. .github/workflows/ci.yml is what ci/matrix.py writes from ci/matrix.yaml;
#   5. every committed results file is valid, in the form export writes, and measured on today's
#      kernel sources, or the change is acknowledged in results/stale.txt (`cuop-tune validate`).
# Usage: ci/jobs/check-fresh.sh [BUILD_DIR]  (a build folder without cuop-tune gets the cuop_emit
# target built first: cuop-tune and the emitted tables, not the library). ctest runs it on the test
# build (ci.fresh).
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
[[ $# -gt 0 ]] && BUILD_DIR="$1"
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then configure; fi
if [[ ! -x "$BUILD_DIR/tuner/cuop-tune" || ! -f "$BUILD_DIR/kernels/generated/emit.stamp" ]]; then
  step "build cuop_emit in $BUILD_DIR"
  cmake --build "$BUILD_DIR" -j "$JOBS" --target cuop_emit
fi
tune="$BUILD_DIR/tuner/cuop-tune"
targets=$(cache_value "$BUILD_DIR" CMAKE_CUDA_ARCHITECTURES | tr ';' ',')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
stale() {  # what, then a diff on stdin
  echo "check-fresh: STALE: $1"
  head -n 200
  status=1
}

step "1. emit from results/ twice (targets $targets): byte-identical"
for out in a b; do "$tune" emit --results results --out "$tmp/$out" --targets "$targets" --quiet; done
diff -ru "$tmp/a" "$tmp/b" >"$tmp/diff" || stale "two emits from the same results differ" <"$tmp/diff"
"$tune" emit --results results --out "$tmp/a" --targets "$targets" >"$tmp/again"
if grep -q " written$" "$tmp/again"; then
  stale "emit rewrote files whose content did not change" <"$tmp/again"
fi

generated="$BUILD_DIR/kernels/generated"
results_dir=$(cache_value "$BUILD_DIR" CUOP_RESULTS_DIR)
if [[ "$(realpath "$results_dir")" != "$(realpath results)" ]]; then
  step "2. skipped: $BUILD_DIR emits from $results_dir, not from this results/"
else
  step "2. the build's generated files ($generated) are what emit writes"
  (cd "$tmp/a" && find . -type f | sed "s|^\./||" | sort) >"$tmp/files"
  [[ -s "$tmp/files" ]] || stale "emit wrote nothing" </dev/null
  while read -r f; do
    if [[ ! -f "$generated/$f" ]]; then
      stale "$generated/$f is missing (emit writes it)" </dev/null
    elif ! cmp -s "$tmp/a/$f" "$generated/$f"; then
      diff -u "$generated/$f" "$tmp/a/$f" >"$tmp/diff" || true
      stale "$generated/$f differs from emit of results/ (rebuild)" <"$tmp/diff"
    fi
  done <"$tmp/files"
fi

step "3. results/softmax/nvidia-h200.json is the export of tests/data/store/h200-softmax-results.db"
"$tune" export --db tests/data/store/h200-softmax-results.db --op softmax --out "$tmp/export" >/dev/null
diff -u results/softmax/nvidia-h200.json "$tmp/export/softmax/nvidia-h200.json" >"$tmp/diff" ||
  stale "results/softmax/nvidia-h200.json is not the export of its database" <"$tmp/diff"

step "4. .github/workflows/ci.yml agrees with ci/matrix.yaml"
matrix workflow --check .github/workflows/ci.yml >"$tmp/diff" ||
  stale ".github/workflows/ci.yml (python3 ci/matrix.py workflow > .github/workflows/ci.yml)" <"$tmp/diff"

step "5. results/ is valid, exported as is, and fresh (cuop-tune validate results/)"
"$tune" validate results/ >"$tmp/validate" 2>&1 || stale "results/ fails validation" <"$tmp/validate"

if [[ $status -ne 0 ]]; then echo "check-fresh: FAILED" >&2; exit 1; fi
echo "check-fresh: generated data is fresh"
