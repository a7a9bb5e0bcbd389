#!/usr/bin/env bash
# Device probe of depthwise stages 0-2 at 3x3 to 31x31, ph 2 and 4, 64-256 threads
# (ci/gpu/probes/dw_stages_rxr.cu). Usage, on the GPU machine from the repository root:
# bash ci/gpu/probes/dw_stages_rxr.sh (BIN=prefix runs binaries built elsewhere: prefix-r5-ph2 ...).
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-stages}"
for r in 3 5 7 31; do
  for ph in 2 4; do
    b="$BIN-r$r-ph$ph"
    [[ -x "$b" ]] || nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include -DRR=$r -DPHV=$ph \
      ci/gpu/probes/dw_stages_rxr.cu kernels/src/reference/conv_reference_cpu.cpp kernels/src/reference/gemm_reference.cu \
      kernels/src/reference/softmax_reference.cu kernels/src/conv/family.cpp \
      kernels/src/conv/launch.cpp -o "$b"
    "$b" | tee -a "$OUT/dw-stages-rxr.md"
  done
done
