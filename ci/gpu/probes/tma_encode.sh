#!/usr/bin/env bash
# Device probe of stage 4's per-call tensor map (ci/gpu/probes/tma_encode.cu): the host cost of
# kc::make_tma_input and of an enqueue with and without the map. Usage, on the GPU machine from the
# repository root: bash ci/gpu/probes/tma_encode.sh (or run a binary built elsewhere: BIN=path).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/tma-encode}"
if [[ ! -x "$BIN" ]]; then
  nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/tma_encode.cu kernels/src/conv/launch.cpp \
    kernels/src/conv/family.cpp -o "$BIN"
fi
"$BIN" | tee "$OUT/tma-encode.md"
