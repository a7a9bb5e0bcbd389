#!/usr/bin/env bash
# Configures and builds cuop-tune with a preset of CMakePresets.json (CUOP_PRESET: release by
# default; ci adds warnings as errors) into the preset's folder, build/ for both (BUILD_DIR
# overrides; extra args go to cmake's configure step).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
preset="${CUOP_PRESET:-release}"
build_dir="${BUILD_DIR:-build}"
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake --preset "$preset" -B "$build_dir" "$@"
elif [[ "$preset" == ci ]]; then
  cmake -S . -B "$build_dir" -DCUOP_WARNINGS_AS_ERRORS=ON >/dev/null  # a folder configured before
fi
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"
