#!/usr/bin/env bash
# One device call for the row_tile probe (lab/softmax/row-tile-probe.yaml): build, the softmax
# family GPU tests (row_tile's and warp_row's), the probe's raced sweep into $OUT/row-tile.db,
# its export and baselines, and lab/softmax/row_tile_table.py's side-by-side table with torch.
# usage: CUOP_GIT_REV=<rev> bash lab/softmax/row_tile_probe.sh   (on the lent machine; $OUT)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export OUT="${OUT:-/tmp/cuop-out}"
export DB="${DB:-$OUT/row-tile.db}"
mkdir -p "$OUT"
CUOP_CMAKE_ARGS=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export CUOP_CMAKE_ARGS LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export RUN_OUT="$OUT" BUILD_DIR="${BUILD_DIR:-$PWD/build}" CUDA_ARCHS="${CUDA_ARCHS:-90a}" JOBS="${JOBS:-16}"
ci/gpu/run.sh build cuop-tune cuop_gpu_tests || exit 1
timeout "${TESTS_S:-150}" ci/gpu/run.sh gpu-tests '*softmax_row_tile*:*sm80_softmax_warp_row*'
timeout "${SWEEP_S:-300}" ci/gpu/run.sh sweep lab/softmax/row-tile-probe.yaml
ci/gpu/run.sh export softmax || exit 1
"$BUILD_DIR/tuner/cuop-tune" baselines "$OUT"/results/softmax/*.json > "$OUT/baselines.json" || exit 1
python3 lab/softmax/row_tile_table.py "$DB" "$OUT/baselines.json"
