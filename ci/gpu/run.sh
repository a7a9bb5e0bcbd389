#!/usr/bin/env bash
# GPU runs of the project on any CUDA host, one phase a call (docs/ci.md, "GPU runs"). Phases
# chain on one machine: the build folder, the database and the output folder carry over. Nothing
# here limits time; a caller with a budget wraps a phase in `timeout` (lab/h200/run.sh does).
#
# usage: ci/gpu/run.sh PHASE [ARG...]
#   build [TARGET...]      configure BUILD_DIR (Release, CUDA_ARCHS, the dispatch tables emitted
#                          from RESULTS) and build everything or the TARGETs
#   tests [CTEST_ARG...]   ctest in BUILD_DIR, e.g. `tests -j4`, `tests -L gpu -R softmax`
#   gpu-tests [FILTER]     cuop_gpu_tests with a GoogleTest filter ('*softmax*'); without one,
#                          every GPU test and the isolated ones, with their printed figures
#   apps [APP...]          the example applications (softmax_app gemm_app conv_app)
#   interrupt [SECONDS]    a softmax sweep interrupted by SIGINT after SECONDS (95), then resumed
#   sweep SPEC... [OPT...] cuop-tune sweep into DB; @NAME is a subset of configs/ written by
#                          ci/gpu/subset_spec.py (@depthwise-tc, @depthwise-nchw-grid,
#                          @depthwise-nchw-corners, @softmax-cols=N, @softmax-race)
#   export OP [--update]   DB's best table, and its export into RUN_OUT/results (a copy of
#                          RESULTS): OP's results replaced, or (--update) only DB's problems
#   holdout [OP...]        scripts/holdout.py per op (softmax gemm conv2d): N (100), SEED
#                          (20261205), AA=1 an A/A run; the summaries last
#   bench-softmax          cuop::softmax against torch.softmax, read and write flush
#   bench-gemm [SHAPES|short|full|FILE] [OPT...]  cuop::gemm against cuBLASLt's heuristic and
#                          torch.matmul (scripts/gemm_vs_torch.py: --dtype, --repetitions,
#                          --min-time); short (the default): GEMM_SHAPES, full: configs/gemm.yaml
#   bench-conv [SPEC|@NAME]  cuop::conv2d against cuDNN's heuristic and torch
#   bench-norm             cuop's layer_norm, rms_norm, add_rms_norm against torch's (after the
#                          python phase): the sweep files' shapes and N (100) drawn with SEED
#   compat [ARCHS[:apps]...]  builds of other architectures run here (default: 80 and 100a:apps,
#                          sm_80 code + compute_80 PTX, sm_100a code); each set's GPU tests and apps
#   gate-aa SUITE...       the gate A/A: this build against itself (A B B A), then against that
#                          round as a baseline; winners' spread
#   gate-inject            which injected slowdowns (1, 2, 5, 10%) the gate detects, REPS rounds (4)
#   race                   strategy race over configs/softmax.yaml against the committed results
#   scaleout               isolated GPU tests, the gate against results/, a --devices all sweep
#   python [tests|bench]   pip install of the PyTorch package into PYTHON's environment (python3),
#                          against BUILD_DIR; its tests and the model timing table (REPS: 20)
#   report [OP...]         the summary tables in RUN_OUT (holdout, gate, compatibility)
# Sweep files are named from the repository root; the settings' paths from where run.sh is called.
# Settings (environment):
#   BUILD_DIR    build folder (build/ of the repository)
#   CUDA_ARCHS   CMAKE_CUDA_ARCHITECTURES (the GPU's: 80, 90a or 100a; else the library's default)
#   RESULTS      results the dispatch tables are emitted from (results/)
#   RUN_OUT      reports, tables, logs and databases (BUILD_DIR/gpu-run)
#   DB           the sweep database (RUN_OUT/sweep.db); SEED_DB: copied to DB first if DB is absent
#   JOBS         build and compile threads (all cores)
#   CUOP_CMAKE_ARGS  extra CMake arguments (ci/gpu/setup-offline-deps.sh prints them)
#   CUOP_CACHE_DIR   cuop-tune's cubin cache; CUOP_GIT_REV the revision a tree without .git records
# Exit status: the phase's (0 ok, 1 error, 3 a regression the gate or holdout found, 77 no GPU).
set -uo pipefail
caller="$PWD"
abs() { if [[ "$1" == /* ]]; then echo "$1"; else echo "$caller/$1"; fi; }  # the settings' paths
cd "$(dirname "$0")/../.." || exit 1
export PATH="/usr/local/cuda/bin:$PATH"

BUILD_DIR="$(abs "${BUILD_DIR:-$PWD/build}")"
RUN_OUT="$(abs "${RUN_OUT:-$BUILD_DIR/gpu-run}")"
mkdir -p "$RUN_OUT"
DB="$(abs "${DB:-$RUN_OUT/sweep.db}")"
RESULTS="$(abs "${RESULTS:-$PWD/results}")"
[[ -z "${SEED_DB:-}" ]] || SEED_DB="$(abs "$SEED_DB")"
JOBS="${JOBS:-$(nproc)}"
tune="$BUILD_DIR/tuner/cuop-tune"
log="$RUN_OUT/log.txt"
# The short list of GEMM shapes of the side-by-side tables (bench-gemm without SHAPES).
GEMM_SHAPES="1x4096x4096,1x28672x8192,1x8192x28672,16x4096x4096,16x28672x8192,64x8192x8192,128x4096x4096,512x28672x8192,2048x8192x8192,4096x4096x4096,4096x1024x4096,16384x4096x4096,127x1031x4093,1000x1000x1000,4097x4097x4097,8192x8192x8192"

step() { echo "== $(date +%T) $*" | tee -a "$log"; }
fail() {
  echo "run.sh: error: $*" | tee -a "$log" >&2
  exit 1
}
usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

# The first of BASE.EXT, BASE-2.EXT, ... that does not exist (a phase run twice keeps both).
fresh() {
  local base=$1 ext=$2 i=2 path="$1.$2"
  while [[ -e "$path" ]]; do path="$base-$i.$ext" && i=$((i + 1)); done
  echo "$path"
}
slug() { echo "$1" | tr -cs 'A-Za-z0-9_' '-' | sed -e 's/^-//' -e 's/-$//'; }

# CMAKE_CUDA_ARCHITECTURES for this host's first GPU: the library's targets (docs/ci.md).
gpu_archs() {
  case "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)" in
    8.*) echo 80 ;;
    9.0) echo 90a ;;
    10.0) echo 100a ;;
    *) echo "80;90a;100a" ;;
  esac
}

require_build() {
  [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || fail "$BUILD_DIR is not configured: run the build phase first"
}
# Builds TARGETs of the configured BUILD_DIR as it is configured (RESULTS is the build phase's).
build_targets() {
  require_build
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "$@" >>"$log" 2>&1 ||
    { grep -E "error|FAILED" "$log" | tail -30; fail "building $* failed (log: $log)"; }
}
# The sweep file SPEC names: a path as it is, @NAME a subset written to RUN_OUT/specs/NAME.yaml.
spec_file() {
  if [[ "$1" != @* ]]; then echo "$1" && return 0; fi
  mkdir -p "$RUN_OUT/specs"
  local out
  out="$RUN_OUT/specs/$(slug "${1#@}").yaml"
  python3 ci/gpu/subset_spec.py "${1#@}" "$out" || fail "no subset ${1#@}"
  echo "$out"
}

# cuDNN for the conv2d back end: the system's, else torch's wheel where torch is installed.
if [[ -z "${CUDNN_ROOT:-}" ]] && ! ls /usr/lib/x86_64-linux-gnu/libcudnn.so* >/dev/null 2>&1; then
  CUDNN_ROOT=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null) && export CUDNN_ROOT
  [[ -n "${CUDNN_ROOT:-}" ]] && export LD_LIBRARY_PATH="$CUDNN_ROOT/lib:${LD_LIBRARY_PATH:-}"
fi

# shellcheck source=ci/gpu/phases/build.sh
source ci/gpu/phases/build.sh
# shellcheck source=ci/gpu/phases/sweep.sh
source ci/gpu/phases/sweep.sh
# shellcheck source=ci/gpu/phases/bench.sh
source ci/gpu/phases/bench.sh
# shellcheck source=ci/gpu/phases/gate.sh
source ci/gpu/phases/gate.sh
# shellcheck source=ci/gpu/phases/python.sh
source ci/gpu/phases/python.sh

phase="${1:-}"
[[ $# -gt 0 ]] && shift
case "$phase" in
build | tests | gpu-tests | apps | interrupt | sweep | export | holdout | bench-softmax | bench-gemm | bench-conv | \
  bench-norm | compat | gate-aa | gate-inject | race | scaleout | python | report)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$log" 2>&1
  "phase_${phase//-/_}" "$@"
  ;;
help | -h | --help) usage ;;
*)
  usage >&2
  echo "run.sh: error: unknown phase \"$phase\"" >&2
  exit 2
  ;;
esac
