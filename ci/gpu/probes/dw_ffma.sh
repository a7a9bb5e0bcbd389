#!/usr/bin/env bash
# Device probe of depthwise 7x7 f16 NHWC on CUDA cores with the taps in registers
# (ci/gpu/probes/dw_ffma.cu), against stage 3 on the same inputs. Usage, on the GPU machine from the
# repository root: bash ci/gpu/probes/dw_ffma.sh (BIN=path runs a binary built elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-ffma}"
[[ -x "$BIN" ]] || nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/dw_ffma.cu \
  kernels/src/reference/read_sweep.cu kernels/src/reference/read_floor.cu -o "$BIN"
"$BIN" | tee "$OUT/dw-ffma.md"
