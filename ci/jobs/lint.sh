#!/usr/bin/env bash
# CPU job `lint`: every C++/CUDA file is formatted (.clang-format), the product code keeps the
# size limits (ci/check_sizes.py), and clang-tidy (.clang-tidy, warnings as errors) finds nothing
# in any host source of the build (docs/ci.md, Code checks).
# .ci/run runs the format check on every file too, but clang-tidy only on what the last commit
# changed: the whole tree takes about 20 CPU minutes.
# Usage: ci/jobs/lint.sh [--changed BASE]  (BUILD_DIR: the build whose compile commands are used;
# its cuop_emit target is built first, since the dispatch sources include the emitted tables).
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
scope=(--all)
[[ "${1:-}" == --changed ]] && scope=(--changed "${2:?--changed needs a commit}")
step "format check"
./scripts/format.sh --check
step "size limits"
python3 ci/check_sizes.py --list
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then configure; fi
if [[ ! -f "$BUILD_DIR/kernels/generated/emit.stamp" ]]; then
  step "build cuop_emit in $BUILD_DIR"
  cmake --build "$BUILD_DIR" -j "$JOBS" --target cuop_emit
fi
step "clang-tidy ${scope[*]}"
JOBS="$JOBS" ./scripts/tidy.sh --build "$BUILD_DIR" "${scope[@]}"
