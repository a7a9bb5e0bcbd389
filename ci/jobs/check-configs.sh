#!/usr/bin/env bash
# CPU job `check-configs`: every shipped configuration compiles and fits every target's limits,
# proven with this toolkit and no GPU:
#   1. the compile-validation sweep of README's first command (`cuop-tune sweep --validate-only`
#      over configs/{softmax,gemm,conv}.yaml: NVRTC compiles every configuration for sm_80, sm_90a
#      and sm_100a, ptxas's report checked against each target's limits), exported;
#   2. the committed results with their builds replaced by those (ci/reprove.py), and the dispatch
#      tables emitted from both for every target: they must be identical, i.e. no configuration
#      the tables ship has stopped compiling or fitting; otherwise the diff says which entries move.
# Usage: ci/jobs/check-configs.sh [--plumbing] [BUILD_DIR]  (builds cuop-tune there when missing).
# CONFIGS="configs/softmax.yaml" sweeps only those files (a quicker local run; the other ops'
# results are then not re-proven, and the output says so).
# The cubin cache ($CUOP_CACHE_DIR, else ~/.cache/cuop-tune) makes a second run fast. The sweep
# takes long on 2 cores, so .ci/run runs only --plumbing (ctest ci.check_configs_plumbing): the
# committed builds stand in for the sweep's, which proves nothing about the toolkit but that the
# re-proving and the comparison work (the tables must come out identical).
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
plumbing=0
if [[ "${1:-}" == --plumbing ]]; then plumbing=1; shift; fi
[[ $# -gt 0 ]] && BUILD_DIR="$1"
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then configure; fi
if [[ ! -x "$BUILD_DIR/tuner/cuop-tune" ]]; then
  step "build cuop-tune in $BUILD_DIR"
  cmake --build "$BUILD_DIR" -j "$JOBS" --target cuop-tune
fi
tune="$BUILD_DIR/tuner/cuop-tune"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
read -r -a configs <<<"${CONFIGS:-configs/softmax.yaml configs/gemm.yaml configs/conv.yaml}"
partial=()
[[ -n "${CONFIGS:-}" ]] && partial=(--partial)

if [[ $plumbing -eq 1 ]]; then
  step "1. --plumbing: the committed builds stand in for a compile-validation sweep"
  python3 ci/reprove.py --builds-of results "$tmp/validation"
else
  step "1. compile-validation sweep: ${configs[*]}"
  "$tune" sweep --validate-only -j "$JOBS" --db "$tmp/validation.db" "${configs[@]}" 2>&1 |
    tee "$tmp/sweep.log" || fail "the compile-validation sweep failed"
  "$tune" export --db "$tmp/validation.db" --out "$tmp/validation" >/dev/null
fi

step "2. the shipped tables, emitted from the committed results and from the re-proven builds"
python3 ci/reprove.py "${partial[@]}" results "$tmp/validation" "$tmp/reproven"
targets=$(matrix archs all | tr ';' ',')  # the shipping build: every target emit knows
"$tune" emit --results results --out "$tmp/committed" --targets "$targets" --quiet
"$tune" emit --results "$tmp/reproven" --out "$tmp/now" --targets "$targets" --quiet
if ! diff -ru "$tmp/committed" "$tmp/now" >"$tmp/diff"; then
  head -n 300 "$tmp/diff"
  fail "shipped configurations no longer compile or fit (the diff: tables from the committed builds, then from this toolkit's)"
fi
if [[ $plumbing -eq 1 ]]; then
  echo "check-configs: --plumbing: the tables re-emitted from the committed builds are identical"
else
  echo "check-configs: every shipped configuration${CONFIGS:+ of ${configs[*]}} compiles and fits on $targets"
fi
