#!/usr/bin/env bash
# Device probe of the ticketed split_row's meet and end-of-launch arrival (docs/softmax-h200.md):
# ci/gpu/probes/split_row_meet.cu compiled by nvcc against three copies of the headers, run
# alternately twice:
#   tree      as committed
#   relaxed   the arrival at the finished-blocks counter a relaxed atomic (no release fence)
#   no-meet   no meet: a barrier and fixed statistics instead (wrong answers; timing only)
# Usage, on the GPU machine from the repository root: bash ci/gpu/probes/split_row_meet.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
header=cuop/kernels/softmax/split_row.cuh
variant() {  # $1 name, then sed expressions for the header
  local name=$1; shift
  rm -rf "/tmp/probe-inc-$name" && cp -r kernels/include "/tmp/probe-inc-$name"
  for e in "$@"; do sed -i "$e" "/tmp/probe-inc-$name/$header"; done
}
relaxed='s|if (detail::atom_add_acq_rel(g.header + 1, 1) == gridDim.x - 1) {|if (atomicAdd(g.header + 1, 1u) == gridDim.x - 1) {  // probe: relaxed|'
no_meet='s|      const detail::stats r = meet(g, 0, result);|      __syncthreads();  // probe: no meet\n      const detail::stats r{0.f, 1.f};|'
variant tree
variant relaxed "$relaxed"
variant no-meet "$no_meet"
grep -q "probe: relaxed" "/tmp/probe-inc-relaxed/$header" || { echo "the relaxed edit did not apply" >&2; exit 1; }
[[ $(grep -c "probe: no meet" "/tmp/probe-inc-no-meet/$header") -eq 2 ]] || { echo "the no-meet edit did not apply" >&2; exit 1; }
src=(ci/gpu/probes/split_row_meet.cu kernels/src/softmax/family.cpp kernels/src/softmax/launch.cpp)
for v in tree relaxed no-meet; do
  nvcc -O3 -std=c++20 -arch=sm_90a -I"/tmp/probe-inc-$v" -DCUOP_PROBE_VARIANT="\"$v\"" "${src[@]}" -o "/tmp/probe-$v" &
done
wait
for _ in 1 2; do for v in tree relaxed no-meet; do "/tmp/probe-$v"; done; done
