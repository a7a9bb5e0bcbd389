#!/usr/bin/env bash
# Device probe of stage 4 with its store phase replaced by packed C fragments and a TMA store
# (ci/gpu/probes/dw_s4store.cu), against stage 4 on the same inputs. Usage, on the GPU machine from
# the repository root: bash ci/gpu/probes/dw_s4store.sh (BIN=path runs a binary built elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-s4store}"
[[ -x "$BIN" ]] || nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ikernels/include ci/gpu/probes/dw_s4store.cu \
  kernels/src/conv/launch.cpp kernels/src/conv/family.cpp kernels/src/reference/read_sweep.cu \
  kernels/src/reference/read_floor.cu -o "$BIN"
"$BIN" | tee "$OUT/dw-s4store.md"
