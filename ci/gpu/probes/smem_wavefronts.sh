#!/usr/bin/env bash
# Shared-memory wavefronts of stage 3's store pattern in isolation (ci/gpu/probes/smem_wavefronts.cu),
# counted by Nsight Compute. Usage, on the GPU machine from the repository root:
# bash ci/gpu/probes/smem_wavefronts.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90a ci/gpu/probes/smem_wavefronts.cu -o /tmp/smem-wavefronts
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
"$ncu" --clock-control none --kernel-name regex:pattern --metrics smsp__inst_executed_op_shared_ld.sum,\
smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
  /tmp/smem-wavefronts 2>&1 | grep -E "pattern<|shared|wavefronts|conflicts"
