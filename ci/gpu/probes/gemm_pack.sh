#!/usr/bin/env bash
# Device probe of the mma family's operand packing (ci/gpu/probes/gemm_pack.cu): nvcc build
# against the working tree, one run. Usage, on the GPU machine from the repository root:
#   bash ci/gpu/probes/gemm_pack.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include ci/gpu/probes/gemm_pack.cu kernels/src/gemm/pack.cu \
  kernels/src/gemm/family.cpp kernels/src/gemm/launch.cpp kernels/src/gemm/skinny_plan.cpp \
  kernels/src/reference/read_sweep.cu kernels/src/reference/read_floor.cu -o /tmp/gemm-pack-probe
/tmp/gemm-pack-probe
