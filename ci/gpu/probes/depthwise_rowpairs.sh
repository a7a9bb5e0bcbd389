#!/usr/bin/env bash
# Device probe of stage 3 (two tap rows in one MMA) against the adjacent-unit loop it replaced
# (ci/gpu/probes/depthwise_rowpairs.cu), on the same inputs. Usage, on the GPU machine from the
# repository root:
# bash ci/gpu/probes/depthwise_rowpairs.sh (BIN=path runs a binary built elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-rowpairs}"
[[ -x "$BIN" ]] || nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/depthwise_rowpairs.cu \
  kernels/src/reference/read_sweep.cu kernels/src/reference/read_floor.cu -o "$BIN"
"$BIN" | tee "$OUT/depthwise-rowpairs.md"
