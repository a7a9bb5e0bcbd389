#!/usr/bin/env bash
# README command 2: set up, build, run every test (cpu, cli; gpu tests report skipped without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
