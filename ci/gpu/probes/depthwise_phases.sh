#!/usr/bin/env bash
# Device probes of the tensor-core depthwise kernel (ci/gpu/probes/depthwise_phases.cu, its phases;
# ci/gpu/probes/depthwise_bounds.cu, what bounds it):
# nvcc build against the working tree, the mma.sync ceiling and the table of phase timings, then
# (NCU=1) Nsight Compute on 32x28x28x512: the MMA phase's stall reasons, and the sections of the
# whole kernel and of its MMA phase alone (clocks left alone); or (PINGPONG=1) only the two-half
# ping-pong section, or (ROWGROUPS=1) only the row-groups-outer section, or (OCCUPANCY=1) only the
# blocks-per-SM section (with NCU=1: Nsight Compute on its MMA phases instead), or (HALFLOADS=1)
# only the fewer-ldmatrix section, or (BULK=1) only the bulk-copies-under-the-MMA-phase section, or
# (TMA=1) only the TMA-fed stage 3 section, or (TMA_SWEEP=1) only the one-box TMA kind across
# configurations. Usage, on the GPU machine from the repository root:
# [NCU=1 | PINGPONG=1 | ROWGROUPS=1 | OCCUPANCY=1 [NCU=1] | HALFLOADS=1 | BULK=1 | TMA=1 | TMA_SWEEP=1] bash ci/gpu/probes/depthwise_phases.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
# Two binaries: the phase probe, and the bounds probe (depthwise_bounds.cu: the OCCUPANCY,
# HALFLOADS, BULK and TMA sections), built side by side.
for probe in phases bounds; do
  libs=()
  if [[ $probe == bounds ]]; then libs=(-L/usr/local/cuda/lib64/stubs -lcuda); fi  # cuTensorMapEncodeTiled
  rm -f "/tmp/dw-$probe"
  nvcc -O3 -std=c++20 -arch=sm_90a -Ikernels/include "ci/gpu/probes/depthwise_$probe.cu" kernels/src/reference/read_sweep.cu \
    kernels/src/reference/read_floor.cu -o "/tmp/dw-$probe" "${libs[@]}" -Xptxas -v >"/tmp/dw-$probe.ptxas" 2>&1 &
done
wait
cat /tmp/dw-phases.ptxas /tmp/dw-bounds.ptxas | grep -E "registers|spill" | sort | uniq -c | head -20
for probe in phases bounds; do
  [[ -x "/tmp/dw-$probe" ]] || { grep -E "error" "/tmp/dw-$probe.ptxas" >&2; echo "the $probe probe did not build" >&2; exit 1; }
done
if [[ "${OCCUPANCY:-0}" == 1 && "${NCU:-0}" == 1 ]]; then
  # The MMA phase alone at 16, 24 and 32 warps per SM (--occupancy ncu launches each three times).
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
  for skip in 1 4 7; do
    "$ncu" --clock-control none --kernel-name regex:entry_mb --launch-skip $skip --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section SchedulerStats --section Occupancy --section InstructionStats \
      --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_op_ldsm.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
      /tmp/dw-bounds --occupancy ncu >"$OUT/ncu-occupancy-$skip.txt" 2>&1 || echo "ncu $skip failed"
    echo "== launch-skip $skip"
    grep -E "entry_mb|Duration|Throughput|Pipe|Issue Slots|Eligible|Active Warps|Achieved Occupancy|Bank|wavefronts|inst_executed|hmma|Executed Ipc|Warp Cycles" "$OUT/ncu-occupancy-$skip.txt" | head -45
  done
  exit 0
fi
# One section alone: its variable set to 1 runs that probe with --<flag> (depthwise-<flag>.md).
for section in TMA_SWEEP:tma-sweep:bounds TMA:tma:bounds BULK:bulk:bounds HALFLOADS:halfloads:bounds OCCUPANCY:occupancy:bounds \
  ROWGROUPS:rowgroups:phases PINGPONG:pingpong:phases; do
  IFS=: read -r var flag probe <<<"$section"
  if [[ "${!var:-0}" == 1 ]]; then
    "/tmp/dw-$probe" "--$flag" | tee "$OUT/depthwise-$flag.md"
    exit 0
  fi
done
/tmp/dw-phases | tee "$OUT/depthwise-phases.md"
if [[ "${NCU:-0}" == 1 ]]; then
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
  stalls=$(for r in mio_throttle short_scoreboard long_scoreboard math_pipe_throttle wait barrier not_selected \
    selected dispatch_stall tex_throttle lg_throttle branch_resolving no_instruction drain imc_miss membar misc; do
    printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' "$r"; done)
  "$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)" --clock-control none --kernel-name regex:entry \
    --launch-skip 10 --launch-count 1 --metrics "${stalls%,}" /tmp/dw-phases --only mma >"$OUT/ncu-stalls.txt" 2>&1 || true
  grep -E "stalled" "$OUT/ncu-stalls.txt" | sort -k3 -n -r | head -20
  for v in full mma; do
    "$ncu" --clock-control none --kernel-name regex:entry --launch-skip 10 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
      --section MemoryWorkloadAnalysis --section SchedulerStats --section InstructionStats \
      /tmp/dw-phases --only "$v" >"$OUT/ncu-$v.txt" 2>&1 || echo "ncu $v failed"
    grep -E "Duration|Throughput|Pipe|Stall|Issue|Warp Cycles|Eligible|Active Warps|Bank|Shared|Executed Ipc" "$OUT/ncu-$v.txt" | head -60
  done
fi
