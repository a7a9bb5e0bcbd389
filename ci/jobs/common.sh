# shellcheck shell=bash
# Sourced by the CI job scripts (docs/ci.md): strict mode, the repository root as the working
# folder, the CUDA toolkit on PATH, and the settings every job reads from the environment:
#   ARCH_SET    an arch set of ci/matrix.yaml (default: all, the shipping build)
#   BUILD_TYPE  Release (default) or Debug
#   BUILD_DIR   the build folder (default: build-ci/<arch set>-<build type>, beside build/)
#   JOBS        build and compile threads (default: all cores)
#   CUOP_CMAKE_ARGS  extra CMake arguments (a GPU host's ci/gpu/setup-offline-deps.sh output)
set -euo pipefail
CUOP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$CUOP_ROOT"
export PATH="/usr/local/cuda/bin:$PATH"
ARCH_SET="${ARCH_SET:-all}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
BUILD_DIR="${BUILD_DIR:-build-ci/${ARCH_SET}-${BUILD_TYPE,,}}"
JOBS="${JOBS:-$(nproc)}"

step() { echo "== $(date +%T) $*"; }
fail() { echo "${0##*/}: error: $*" >&2; exit 1; }
matrix() { python3 ci/matrix.py "$@"; }

# A value of a configured build folder's CMakeCache.txt.
cache_value() {  # build_dir name
  sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"
}

# Configures $BUILD_DIR for $ARCH_SET and $BUILD_TYPE (again when it was configured otherwise),
# with compiler warnings as errors, as every CI build is.
configure() {
  local archs
  archs=$(matrix archs "$ARCH_SET")
  step "configure $BUILD_DIR: arch set $ARCH_SET (CMAKE_CUDA_ARCHITECTURES=$archs), $BUILD_TYPE"
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCUOP_WARNINGS_AS_ERRORS=ON \
        -DCMAKE_CUDA_ARCHITECTURES="$archs" ${CUOP_CMAKE_ARGS:-} >/dev/null
}
