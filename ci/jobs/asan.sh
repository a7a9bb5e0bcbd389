#!/usr/bin/env bash
# CPU job `asan`: the CPU tests (labels cpu and cli) in a build with AddressSanitizer and
# UndefinedBehaviorSanitizer on the host code (CMakePresets.json, preset asan: build-asan/, Debug
# at -O1, sm_90a only, no examples). A report fails the test it happens in. The fuzz replays and
# the tests/ci jobs stay out (the fuzzers run sanitized anyway; the jobs are scripts).
# Usage: ci/jobs/asan.sh [CTEST_ARGS...]  (e.g. -R 'spec|emit' to run part of it)
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
if [[ ! -f build-asan/build.ninja ]]; then
  step "configure build-asan (preset asan)"
  cmake --preset asan ${CUOP_CMAKE_ARGS:-} >/dev/null
fi
step "build build-asan"
cmake --build --preset asan -j "$JOBS"
step "ctest --preset asan $*"
ctest --preset asan -j "$JOBS" "$@"
