#!/usr/bin/env bash
# Device probe of stage 3 with its MMAs as warpgroup MMAs (wgmma, sm_90a) against stage 3
# (ci/gpu/probes/depthwise_wgmma.cu), on the same inputs. Usage, on the GPU machine from the
# repository root: bash ci/gpu/probes/depthwise_wgmma.sh (BIN=path runs a binary built elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-wgmma}"
[[ -x "$BIN" ]] || nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ikernels/include ci/gpu/probes/depthwise_wgmma.cu \
  kernels/src/reference/read_sweep.cu kernels/src/reference/read_floor.cu -o "$BIN"
"$BIN" | tee "$OUT/depthwise-wgmma.md"
