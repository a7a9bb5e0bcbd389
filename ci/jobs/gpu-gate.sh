#!/usr/bin/env bash
# GPU job `gate`, on a self-hosted runner labelled [self-hosted, gpu, <GPU_ARCH>] (ci/matrix.yaml,
# gpu_jobs): builds the arch set that GPU_ARCH's runner builds (Release), runs the GPU tests (on a
# GPU runner a skipped GPU test is a failure), checks the compatibility matrix of the build, then
# runs the regression gate against the committed baseline (exit 3: a real slowdown). Locally, on
# a machine with a GPU:  GPU_ARCH=sm_90 ci/jobs/gpu-gate.sh
# `cuop-tune gate` is being built (issue 5, item 3); this calls it as
# `cuop-tune gate configs/gate/*.yaml --baseline results/`.
if [[ -n "${GPU_ARCH:-}" && -z "${ARCH_SET:-}" ]]; then
  ARCH_SET=$(python3 "$(dirname "$0")/../matrix.py" gpu-set "$GPU_ARCH")
  export ARCH_SET
fi
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
step "GPU"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader ||
  fail "no GPU here (nvidia-smi failed): the gate runs on a GPU runner"

configure
step "build cuop-tune, cuop_kernels and the GPU tests"
cmake --build "$BUILD_DIR" -j "$JOBS" --target cuop-tune cuop_kernels cuop_gpu_tests

step "GPU tests"
(cd "$BUILD_DIR" && ctest -L gpu --output-on-failure --timeout 600) | tee "$BUILD_DIR/gpu-tests.log"
if grep -q "\*\*\*Skipped\|(Skipped)" "$BUILD_DIR/gpu-tests.log"; then
  fail "GPU tests were skipped on a GPU runner (the device is not usable)"
fi

step "compatibility matrix"
ci/jobs/compat-matrix.sh "$BUILD_DIR"

step "gate: cuop-tune gate configs/gate/*.yaml --baseline results/"
"$BUILD_DIR/tuner/cuop-tune" gate configs/gate/*.yaml --baseline results/
