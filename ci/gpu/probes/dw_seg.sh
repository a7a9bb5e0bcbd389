#!/usr/bin/env bash
# Device probe of stage 5's schedule (ci/gpu/probes/dw_seg.cu) on the four 7x7 f16 NHWC layers,
# the library's kernel beside the one of commit HEAD_REV (default HEAD). Usage, on the GPU machine
# from the repository root: bash ci/gpu/probes/dw_seg.sh [FILTER [once]] (BIN=path runs a binary
# built elsewhere; build one here with BUILD_ONLY=1).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-seg}"
if [[ ! -x "$BIN" || "${BUILD_ONLY:-0}" == 1 ]]; then
  mkdir -p .probe
  # The earlier kernel in a namespace of its own, beside the library's.
  git show "${HEAD_REV:-HEAD}:kernels/include/cuop/kernels/conv/depthwise_seg.cuh" |
    sed -e 's|^namespace cuop::kernels::conv {|namespace cuop::kernels::conv_head {\nusing cuop::kernels::conv::conv_args;\nusing cuop::kernels::conv::tma_input;|' \
    > .probe/depthwise_seg_head.cuh
  nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ikernels/include ci/gpu/probes/dw_seg.cu \
    kernels/src/reference/read_sweep.cu kernels/src/reference/read_floor.cu -o "$BIN"
fi
[[ "${BUILD_ONLY:-0}" == 1 ]] || "$BIN" "$@" | tee "$OUT/dw-seg.md"
