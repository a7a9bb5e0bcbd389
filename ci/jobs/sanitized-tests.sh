#!/usr/bin/env bash
# .ci/run's sanitizer stage: the CPU unit tests of the code that reads untrusted input and owns
# memory (sweep files, results files, the store, emit, compare; tests/fuzz/CMakeLists.txt lists
# them) under AddressSanitizer + UndefinedBehaviorSanitizer, leaks checked, in the fuzzers' clang
# build (build-fuzz/), whose library the fuzz stage then reuses. A report fails the test it
# happens in. Every CPU and CLI test under the sanitizers is the hosted `asan` job
# (ci/jobs/asan.sh), too long for .ci/run (docs/ci.md, Code checks).
# Usage: ci/jobs/sanitized-tests.sh [CTEST_ARGS...]  (e.g. -R Spec to run part of it)
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
build=${FUZZ_BUILD_DIR:-build-fuzz}
step "build cuop_sanitized_tests in $build"
JOBS="$JOBS" ./scripts/fuzz-build.sh cuop_sanitized_tests
step "ctest -L sanitized $*"
# As scripts/fuzz.sh: leaks are reports, UBSan stops at its first (the build does not recover).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
ctest --test-dir "$build" -L sanitized --no-tests=error --output-on-failure -j "$JOBS" "$@"
