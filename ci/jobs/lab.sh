#!/usr/bin/env bash
# CPU job step `lab`: the lab's probes (lab/README.md) still compile against the library. Turns
# CUOP_BUILD_LAB on in a build folder (the probes stay out of `all`, so the folder's other builds do
# not change) and builds the target `lab` (sm_90a, against cuop_kernels_core), so that a probe the
# library's changes break fails CI instead of rotting. scripts/test.sh runs it on the test build.
# Usage: ci/jobs/lab.sh [BUILD_DIR]
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
[[ $# -gt 0 ]] && BUILD_DIR="$1"
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then configure; fi
if [[ "$(cache_value "$BUILD_DIR" CUOP_BUILD_LAB)" != ON ]]; then
  step "configure $BUILD_DIR with CUOP_BUILD_LAB=ON"
  cmake -S . -B "$BUILD_DIR" -DCUOP_BUILD_LAB=ON >/dev/null
fi
step "build the lab's probes in $BUILD_DIR"
start=$(date +%s)
cmake --build "$BUILD_DIR" -j "$JOBS" --target lab
step "the lab's probes compile ($(($(date +%s) - start)) s)"
