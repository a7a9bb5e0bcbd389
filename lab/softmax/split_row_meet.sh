#!/usr/bin/env bash
# Lab probe of split_row with one block per (row, segment) (lab/JOURNAL.md, softmax):
# lab/softmax/split_row_meet.cu compiled by nvcc against copies of the headers, run
# alternately twice:
#   tree        as in the working tree
#   no-rescue   the fallback's rescue call removed (what its code costs the waiting path)
#   no-meet     no meet: a barrier and fixed statistics instead (wrong answers; timing only)
#   NAME        for each NAME=DIR of $TREES: kernels/ taken from DIR (a copy of another version's
#               kernels/, e.g. `git archive REV kernels | tar -x -C DIR`)
# Usage, on the GPU machine from the repository root:
#   [TREES="old=/tmp/old other=/tmp/other"] bash lab/softmax/split_row_meet.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
header=cuop/kernels/softmax/split_row.cuh
variant() {  # $1 name, $2 directory holding kernels/, then sed expressions for the header
  local name=$1 from=$2; shift 2
  rm -rf "/tmp/probe-$name.d" && mkdir -p "/tmp/probe-$name.d" && cp -r "$from/kernels" "/tmp/probe-$name.d/"
  for e in "$@"; do sed -i "$e" "/tmp/probe-$name.d/kernels/include/$header"; done
}
no_rescue='s|      rescue(a, g, scratch, help);|      ;  // probe: no rescue|'
no_meet='s|      const detail::stats r = meet_or_help(a, g, result, scratch, help);|      __syncthreads();  // probe: no meet\n      const detail::stats r{0.f, 1.f};|'
variants=(tree no-rescue no-meet)
variant tree .
variant no-rescue . "$no_rescue"
variant no-meet . "$no_meet"
grep -q "probe: no rescue" "/tmp/probe-no-rescue.d/kernels/include/$header" || { echo "the no-rescue edit did not apply" >&2; exit 1; }
[[ $(grep -c "probe: no meet" "/tmp/probe-no-meet.d/kernels/include/$header") -eq 2 ]] || { echo "the no-meet edit did not apply" >&2; exit 1; }
for t in ${TREES:-}; do
  variant "${t%%=*}" "${t#*=}"
  variants=("${t%%=*}" "${variants[@]}")
done
for v in "${variants[@]}"; do
  d=/tmp/probe-$v.d/kernels
  nvcc -O3 -std=c++20 -arch=sm_90a -I"$d/include" -DCUOP_PROBE_VARIANT="\"$v\"" lab/softmax/split_row_meet.cu -Ilab/common \
    "$d/src/softmax/family.cpp" "$d/src/softmax/launch.cpp" "$d/src/reference/read_sweep.cu" "$d/src/reference/read_floor.cu" \
    -Xptxas -v -o "/tmp/probe-$v" 2>&1 | grep -A3 "Compiling entry.*split_row" | grep -E "Compiling|Used|spill" |
    sed -E 's/.*split_row(I[^ ]*)EEEEv.*/\1/; s/ptxas info *: //; s/, used [0-9]+ barriers.*//' | paste - - - | sed "s/^/$v: /" &
done
wait
for _ in 1 2; do for v in "${variants[@]}"; do "/tmp/probe-$v"; done; done
