#!/usr/bin/env bash
# Device probe of stage 3's load batches: depthwise_mma::unroll (transposes in flight per thread,
# 4 as committed) decides how many batches, each waiting a whole memory latency, a block's patch
# takes. Builds the phase probe (ci/gpu/probes/depthwise_phases.cu) against copies of the header
# with unroll 4, 6, 7 and 8 (UNROLLS overrides), then prints each build's stage 3 rows (--winners),
# the committed value first and again last. Usage, on the GPU machine from the repository root:
# [UNROLLS="4 6"] bash ci/gpu/probes/depthwise_unroll.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
header=cuop/kernels/conv/depthwise_mma.cuh
unrolls=(${UNROLLS:-4 6 7 8})
for u in "${unrolls[@]}"; do
  d=/tmp/dw-unroll-$u
  rm -rf "$d" && mkdir -p "$d" && cp -r kernels "$d/"
  sed -i "s/  static constexpr int unroll = 4;  /  static constexpr int unroll = $u;  /" "$d/kernels/include/$header"
  grep -q "static constexpr int unroll = $u;" "$d/kernels/include/$header" || { echo "the unroll $u edit did not apply" >&2; exit 1; }
  nvcc -O3 -std=c++20 -arch=sm_90a -I"$d/kernels/include" ci/gpu/probes/depthwise_phases.cu \
    "$d/kernels/src/reference/read_sweep.cu" "$d/kernels/src/reference/read_floor.cu" -o "$d/probe" -Xptxas -v >"$d/ptxas.txt" 2>&1 &
done
wait
echo "| unroll | layer, configuration | full | load+store | load+mma | mma | load | store | load+2mma+store |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for u in "${unrolls[@]}" "${unrolls[0]}"; do
  d=/tmp/dw-unroll-$u
  spills=$(grep -cE "[1-9][0-9]* bytes spill stores" "$d/ptxas.txt" || true)
  "$d/probe" --winners | grep -E '^\| [0-9]' | sed "s/^| /| $u ($spills probe kernels spill) | /"
done
