#!/usr/bin/env bash
# README command 1: set up, build, run the main job. With a GPU: the softmax and GEMM sweeps
# measured and stored in cuop-tune.db. Without one: cuop-tune says so and compile-validates every candidate for
# every target (sm_80, sm_90a, sm_100a). The convolution sweep is compile-validated either way
# until its measurement path has been checked on a GPU (docs/conv.md).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
if [[ $# -gt 0 ]]; then files=("$@"); else files=(configs/softmax.yaml configs/gemm.yaml); fi
./build/tuner/cuop-tune sweep "${files[@]}"
[[ $# -gt 0 ]] || ./build/tuner/cuop-tune sweep configs/conv.yaml --validate-only
for op in softmax gemm; do ./build/tuner/cuop-tune best --op "$op"; done
