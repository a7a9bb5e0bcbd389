#!/usr/bin/env bash
# Device probe of depthwise 7x7 f16 NHWC on tensor cores with A fragments kept across tap rows
# (ci/gpu/probes/dw_slots.cu), against stage 3 on the same inputs. Usage, on the GPU machine from
# the repository root: bash ci/gpu/probes/dw_slots.sh [CONFIG] (BIN=path runs a binary built elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-slots}"
[[ -x "$BIN" ]] || nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ikernels/include ci/gpu/probes/dw_slots.cu \
  kernels/src/reference/read_sweep.cu kernels/src/reference/read_floor.cu -o "$BIN"
"$BIN" "$@" | tee "$OUT/dw-slots.md"
