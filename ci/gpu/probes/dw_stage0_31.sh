#!/usr/bin/env bash
# Device probe of depthwise stage 0 with 31x31 filters (ci/gpu/probes/dw_stage0_31.cu): the
# answers of the configurations the baseline sweep found wrong, under three launch bounds, built
# as the library builds (NVVM -O3), with NVVM at -O1 and with ptxas at -O1; then
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck on a one-tile shape (right answers)
# and a multi-tile one (the faulty path runs). Usage, on the GPU machine from the repository root:
# bash ci/gpu/probes/dw_stage0_31.sh (BIN=path runs binaries built elsewhere: path,
# path-nvvmO1 and path-ptxasO1). Findings: docs/conv.md, "Limits".
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT="${OUT:-/tmp}"
BIN="${BIN:-/tmp/dw-stage0-31}"
flags=(-O3 -std=c++20 -arch=sm_90a -lineinfo -Ikernels/include ci/gpu/probes/dw_stage0_31.cu)
[[ -x "$BIN" ]] || nvcc "${flags[@]}" -o "$BIN"
[[ -x "$BIN-nvvmO1" ]] || nvcc "${flags[@]}" -Xcicc -O1 -o "$BIN-nvvmO1"
[[ -x "$BIN-ptxasO1" ]] || nvcc "${flags[@]}" -Xptxas -O1 -o "$BIN-ptxasO1"
for b in "$BIN" "$BIN-nvvmO1" "$BIN-ptxasO1"; do
  echo "== $(basename "$b")" | tee -a "$OUT/dw-stage0-31.md"
  "$b" | tee -a "$OUT/dw-stage0-31.md"
done
for shape in --quick --quick-multi; do
  for tool in memcheck racecheck synccheck initcheck; do
    echo "== compute-sanitizer --tool $tool, $shape" | tee -a "$OUT/dw-stage0-31-sanitizer.txt"
    timeout 90 compute-sanitizer --tool "$tool" --print-limit 5 "$BIN" "$shape" 2>&1 | tail -15 | tee -a "$OUT/dw-stage0-31-sanitizer.txt"
  done
done
