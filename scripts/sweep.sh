#!/usr/bin/env bash
# README command 1: set up, build, run the main job. With a GPU: the softmax, GEMM, convolution and
# normalization sweeps measured and stored in cuop-tune.db. Without one: cuop-tune says so and compile-validates
# a sample, 4 configurations per family and named variant, for every target (sm_80, sm_90a,
# sm_100a); CUOP_FULL_VALIDATION=1 compile-validates every candidate.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
if [[ $# -gt 0 ]]; then files=("$@"); else
  files=(configs/softmax.yaml configs/gemm.yaml configs/conv.yaml configs/layernorm.yaml configs/rmsnorm.yaml
    configs/groupnorm.yaml)
fi
sample=4
[[ "${CUOP_FULL_VALIDATION:-0}" == 1 ]] && sample=0
./build/tuner/cuop-tune sweep --validation-sample "$sample" "${files[@]}"
for op in softmax gemm conv2d layernorm rmsnorm; do ./build/tuner/cuop-tune best --op "$op"; done
