#!/usr/bin/env bash
# Device probe of the decode read floor (ci/gpu/probes/read_floor_tma.cu): an empty launch, the
# library's 16-byte-load streams and TMA bulk-copy streams over the weights of the decode shapes,
# timed as examples/gemm_bench times its read floor. Usage, on the GPU machine from the repository
# root: bash ci/gpu/probes/read_floor_tma.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/read_floor_tma.cu kernels/src/reference/read_floor.cu \
  kernels/src/reference/read_sweep.cu -o /tmp/read-floor-tma
/tmp/read-floor-tma | tee "$OUT/read-floor-tma.md"
