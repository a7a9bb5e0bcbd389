#!/usr/bin/env bash
# CPU job step `compat-matrix` (after ci/jobs/build.sh): prints the compatibility matrix of a built
# library, from cuobjdump, and fails when a target is served worse than promised: what the build's
# CMAKE_CUDA_ARCHITECTURES gives (always), and ci/matrix.yaml's promises for ARCH_SET (when ARCH_SET
# is set: the build must then be of that arch set). Usage:
#   ci/jobs/compat-matrix.sh [BUILD_DIR] [compat_matrix.py options, e.g. --skip-without-cuobjdump]
# ctest runs it on the test build (ci.compat_matrix_build). Rules: ci/compat_matrix.py, docs/ci.md.
arch_set_given="${ARCH_SET:-}"
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
if [[ $# -gt 0 && "$1" != -* ]]; then BUILD_DIR="$1"; shift; fi
[[ -f "$BUILD_DIR/CMakeCache.txt" ]] || fail "$BUILD_DIR: not a configured build (run ci/jobs/build.sh)"
archs=$(cache_value "$BUILD_DIR" CMAKE_CUDA_ARCHITECTURES)
args=(--expect-archs "$archs")
if [[ -n "$arch_set_given" ]]; then
  want=$(matrix archs "$ARCH_SET")
  [[ "$archs" == "$want" ]] || fail "$BUILD_DIR is built for \"$archs\", arch set $ARCH_SET is \"$want\""
  args+=(--promise "$(matrix promises "$ARCH_SET")")
fi
libs=("$BUILD_DIR/kernels/libcuop_kernels.a" "$BUILD_DIR/kernels/libcuop_kernels_core.a")
for lib in "${libs[@]}"; do [[ -f "$lib" ]] || fail "$lib: not built (run ci/jobs/build.sh)"; done
exec python3 ci/compat_matrix.py "${libs[@]}" "${args[@]}" "$@"
