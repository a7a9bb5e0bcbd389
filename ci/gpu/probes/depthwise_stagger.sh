#!/usr/bin/env bash
# Device probe of stages 3 and 4 with the first wave's co-resident blocks started apart
# (ci/gpu/probes/depthwise_stagger.cu). Usage, on the GPU machine from the repository root:
# bash ci/gpu/probes/depthwise_stagger.sh (BIN=path runs a binary built elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-stagger}"
[[ -x "$BIN" ]] || nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/depthwise_stagger.cu \
  kernels/src/conv/launch.cpp kernels/src/conv/family.cpp kernels/src/reference/read_sweep.cu \
  kernels/src/reference/read_floor.cu -o "$BIN"
"$BIN" | tee "$OUT/depthwise-stagger.md"
