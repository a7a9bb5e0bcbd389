#!/usr/bin/env bash
# ci.package_consumer: installs BUILD_DIR's library and tuner into a scratch prefix and builds the
# consumer project of tests/package against it with find_package (LANGUAGES CXX CUDA, its own CUDA
# architecture), then runs it (without a GPU its answers are statuses); runs the installed tuner;
# configures an add_subdirectory consumer with a prebuilt tuner. usage: BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
src="$(cd "$(dirname "$0")/../package" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log" || { cat "$scratch/install.log"; exit 1; }
test -f "$scratch/prefix/lib/cmake/cuop/cuopConfig.cmake"
test -f "$scratch/prefix/include/cuop/generated/softmax_dispatch.hpp"
cmake -S "$src" -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=86 \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >"$scratch/configure.log" || { cat "$scratch/configure.log"; exit 1; }
grep "cuop " "$scratch/configure.log"
cmake --build "$scratch/consumer" >"$scratch/build.log" || { cat "$scratch/build.log"; exit 1; }
"$scratch/consumer/consumer"

# The installed tuner finds the prefix's kernel headers and device flags from its own location and
# compile-validates a sweep from there.
tune="$scratch/prefix/bin/cuop-tune"
env -u CUOP_KERNELS_INCLUDE_DIR -u CUOP_DEVICE_FLAGS_FILE "$tune" --version | tee "$scratch/version.txt"
grep -qx "kernel headers: $scratch/prefix/include" "$scratch/version.txt"
grep -qx "device flags: $scratch/prefix/share/cuop/device_flags.txt" "$scratch/version.txt"
(cd "$scratch" && env -u CUOP_KERNELS_INCLUDE_DIR -u CUOP_DEVICE_FLAGS_FILE "$tune" sweep --validate-only \
  --db "$scratch/validate.db" --cache "$scratch/cache" "$src/../../configs/softmax-smoke.yaml" 2>&1 | tail -3)

# add_subdirectory with a prebuilt cuop-tune: configured with CMake's default architecture for a
# CUDA project (no CMAKE_CUDA_ARCHITECTURES given), the tables emitted by that binary, the log
# saying which table serves it; no tuner, test or example target exists (building all the kernels
# is left to the hosted CI's build jobs: minutes per architecture here; one conv unit is built).
cmake -S "$src/subdirectory" -B "$scratch/subdirectory" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCUOP_SOURCE_DIR="$src/../.." -DCUOP_TUNE_EXECUTABLE="$build/tuner/cuop-tune" \
  >"$scratch/sub-configure.log" || { cat "$scratch/sub-configure.log"; exit 1; }
grep "cuop: kernels and dispatch tables" "$scratch/sub-configure.log"
targets="$(ninja -C "$scratch/subdirectory" -t targets all)"
for t in cuop-tune cuop_unit_tests softmax_app cuop-holdout-runner; do
  if grep -q "^$t:" <<<"$targets"; then echo "add_subdirectory built $t"; exit 1; fi
done
grep -q "^consumer:" <<<"$targets"
cmake --build "$scratch/subdirectory" --target cuop_emit >"$scratch/emit.log" || { cat "$scratch/emit.log"; exit 1; }
grep "cuop-tune emit: CUDA architecture" "$scratch/emit.log"
test -f "$scratch/subdirectory/cuop/kernels/generated/cuop/generated/softmax_dispatch.hpp"
unit=cuop/kernels/CMakeFiles/cuop_kernels.dir/generated/conv_kernels_0.cu.o  # depthwise kernels of the sm_75 table
cmake --build "$scratch/subdirectory" --target "$unit" >"$scratch/unit.log" || { cat "$scratch/unit.log"; exit 1; }
echo "add_subdirectory: library only, tables emitted by $build/tuner/cuop-tune"
