#!/usr/bin/env bash
# CPU job step `consumers` (after ci/jobs/build.sh, on its BUILD_DIR): two CUDA projects
# (LANGUAGES CXX CUDA) built and linked for the arch set's CMAKE_CUDA_ARCHITECTURES, neither
# building the tuner's dependencies (docs/packaging.md): tests/package with find_package on an
# install of BUILD_DIR, and tests/package/subdirectory with add_subdirectory and BUILD_DIR's
# cuop-tune, whose library is emitted and compiled for those architectures. Locally, e.g.:
#   ARCH_SET=portable ci/jobs/build.sh && ARCH_SET=portable ci/jobs/consumers.sh
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
[[ -x "$BUILD_DIR/tuner/cuop-tune" ]] || fail "$BUILD_DIR: no cuop-tune (run ci/jobs/build.sh)"
archs=$(matrix archs "$ARCH_SET")
build="$(cd "$BUILD_DIR" && pwd)"
scratch="$build/consumers"
rm -rf "$scratch"
step "install $BUILD_DIR into $scratch/prefix"
cmake --install "$BUILD_DIR" --prefix "$scratch/prefix" >/dev/null
step "find_package consumer for CMAKE_CUDA_ARCHITECTURES=$archs"
cmake -S tests/package -B "$scratch/find-package" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" -DCMAKE_PREFIX_PATH="$scratch/prefix"
cmake --build "$scratch/find-package" -j "$JOBS"
step "add_subdirectory consumer for CMAKE_CUDA_ARCHITECTURES=$archs (the library built again, for those)"
cmake -S tests/package/subdirectory -B "$scratch/subdirectory" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" -DCUOP_SOURCE_DIR="$CUOP_ROOT" \
  -DCUOP_TUNE_EXECUTABLE="$build/tuner/cuop-tune"
cmake --build "$scratch/subdirectory" -j "$JOBS"
ls -l "$scratch/find-package/consumer" "$scratch/subdirectory/consumer"
