#!/usr/bin/env bash
# Configures the sanitized clang build (build-fuzz/: tests/fuzz only, ASan + UBSan + libFuzzer's
# coverage) when it is not yet, and builds TARGET... in it: the fuzz targets (scripts/fuzz.sh)
# and the sanitized unit tests (ci/jobs/sanitized-tests.sh) share it, so each compiles the tuner's
# sources once (docs/ci.md, Fuzzing and Code checks).
#
#   scripts/fuzz-build.sh TARGET...      Environment: FUZZ_BUILD_DIR (build-fuzz), JOBS (nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
(($#)) || { echo "fuzz-build: error: no target given" >&2; exit 2; }

./scripts/install-deps.sh --fuzz
build=${FUZZ_BUILD_DIR:-build-fuzz}
if [[ ! -f "$build/build.ninja" ]]; then
  launcher=()
  command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  # Debug: no NDEBUG, so nlohmann-json's assertions stay on; the fuzz flags set -O1.
  cmake -S . -B "$build" -G Ninja -DCUOP_BUILD_FUZZERS=ON -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >/dev/null
fi
start=$SECONDS
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "$@"
echo "fuzz-build: $* built in $((SECONDS - start)) s"
