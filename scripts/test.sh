#!/usr/bin/env bash
# README command 2: set up, build, compile the lab's probes, run every test (cpu, cli; gpu tests
# report skipped without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
./ci/jobs/lab.sh "${BUILD_DIR:-build}"  # the lab's probes compile (docs/ci.md)
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
