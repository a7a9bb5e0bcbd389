#!/usr/bin/env bash
# README command 1: set up, build, run the main job. With a GPU: the softmax, GEMM and convolution
# sweeps measured and stored in cuop-tune.db. Without one: cuop-tune says so and compile-validates
# every candidate for every target (sm_80, sm_90a, sm_100a).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
if [[ $# -gt 0 ]]; then files=("$@"); else files=(configs/softmax.yaml configs/gemm.yaml configs/conv.yaml); fi
./build/tuner/cuop-tune sweep "${files[@]}"
for op in softmax gemm conv2d; do ./build/tuner/cuop-tune best --op "$op"; done
