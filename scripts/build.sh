#!/usr/bin/env bash
# Configures and builds cuop-tune into build/ (BUILD_DIR overrides; extra args go to cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
build_dir="${BUILD_DIR:-build}"
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"
