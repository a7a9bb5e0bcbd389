#!/usr/bin/env bash
# GPU job `gate`, on a self-hosted runner labelled [self-hosted, gpu, <GPU_ARCH>] (ci/matrix.yaml,
# gpu_jobs): builds the arch set that GPU_ARCH's runner builds (Release), runs the GPU tests (on a
# GPU runner a skipped GPU test is a failure), the holdout of the dispatch on random shapes (exit
# 3: a shape slower than its baseline), checks the compatibility matrix of the build, then
# runs the regression gate against the committed baseline (exit 3: a real slowdown). Locally, on
# a machine with a GPU:  GPU_ARCH=sm_90 ci/jobs/gpu-gate.sh
# A GPU with no committed baseline under results/ (only the H200 has one so far) gets its gate
# suites measured and exported for review, and the job says so, instead of comparing nothing.
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
cmake --build "$BUILD_DIR" -j "$JOBS" --target cuop-tune cuop_kernels cuop_gpu_tests cuop-holdout-runner

step "GPU tests"
(cd "$BUILD_DIR" && ctest -L gpu --output-on-failure --timeout 600) | tee "$BUILD_DIR/gpu-tests.log"
# Tests skip for two reasons: no usable device (a failure on a GPU runner) or a feature this GPU
# or build lacks (thread-block clusters before sm_90: expected).
if "$BUILD_DIR/tests/cuop_gpu_tests" --gtest_filter='sm80_conv_dispatch.bad_arguments_are_refused' 2>&1 |
    grep -q "no CUDA device"; then
  fail "GPU tests were skipped on a GPU runner: no usable CUDA device"
fi

# The dispatch against its baselines on shapes nobody tuned (docs/dispatch.md, "Holdout"): 20
# shapes per op drawn from configs/distributions, a new draw each run (HOLDOUT_SEED, the run's
# number on the hosted CI). Exit 3 when a shape is slower than its baseline beyond noise.
step "holdout: the dispatch against its baselines on random shapes"
for op in softmax gemm conv2d; do
  python3 scripts/holdout.py run "$BUILD_DIR" "configs/distributions/$op.yaml" --n 20 \
    --seed "${HOLDOUT_SEED:-${GITHUB_RUN_NUMBER:-1}}" --no-torch --json "$BUILD_DIR/holdout-$op.json" |
    tail -6
done

step "compatibility matrix"
ci/jobs/compat-matrix.sh "$BUILD_DIR"

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$gpu" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
if ! ls results/*/"$slug".json >/dev/null 2>&1; then
  step "no baseline for $gpu (results/*/$slug.json): measuring the gate suites for review"
  "$BUILD_DIR/tuner/cuop-tune" sweep configs/gate/*.yaml --db "$BUILD_DIR/gate-new.db"
  "$BUILD_DIR/tuner/cuop-tune" export --db "$BUILD_DIR/gate-new.db" --out "$BUILD_DIR/gate-results"
  echo "::warning::no committed baseline for $gpu: nothing was compared; $BUILD_DIR/gate-results holds this run's results to commit"
  exit 0
fi
step "gate: cuop-tune gate configs/gate/*.yaml --baseline results/"
"$BUILD_DIR/tuner/cuop-tune" gate configs/gate/*.yaml --baseline results/
