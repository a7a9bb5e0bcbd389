#!/usr/bin/env bash
# Device probe of reading (and writing, and copying) a depthwise layer's NHWC tensors in per-block channel slices
# (ci/gpu/probes/nhwc_read.cu). Usage, on the GPU machine from the repository root:
# bash ci/gpu/probes/nhwc_read.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/nhwc_read.cu kernels/src/reference/read_sweep.cu \
  kernels/src/reference/read_floor.cu -o /tmp/nhwc-read
/tmp/nhwc-read | tee "$OUT/nhwc-read.md"
