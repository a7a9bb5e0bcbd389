#!/usr/bin/env bash
# CPU job `build`: builds cuop::kernels (libcuop_kernels.a, with the dispatch tables emitted from
# results/ for the arch set's architectures) for ARCH_SET and BUILD_TYPE. The job then runs
# ci/jobs/compat-matrix.sh on the same BUILD_DIR. Locally, e.g.:
#   ARCH_SET=sm_80 BUILD_TYPE=Debug ci/jobs/build.sh && ARCH_SET=sm_80 BUILD_TYPE=Debug ci/jobs/compat-matrix.sh
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
configure
step "build cuop_kernels (and cuop-tune, which emits its dispatch tables)"
cmake --build "$BUILD_DIR" -j "$JOBS" --target cuop_kernels
ls -l "$BUILD_DIR/kernels/libcuop_kernels.a" "$BUILD_DIR/kernels/libcuop_kernels_core.a"
