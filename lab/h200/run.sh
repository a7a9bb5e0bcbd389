#!/usr/bin/env bash
# The lent H200's device calls: ci/gpu/run.sh's phases composed into workflows that each fit one
# call of the lent machine (10 minutes a command), with a time budget per phase (the *_S
# variables, seconds) so that a long sweep leaves time for the steps after it. What is particular
# to that machine lives here: sm_90a, 16 cores, no network (the Debian packages carried in .deps/,
# ci/gpu/setup-offline-deps.sh), no .git (CUOP_GIT_REV=<rev> names the revision every run records),
# and $OUT, the folder whose files come back (RUN_OUT of ci/gpu/run.sh; default /tmp/cuop-out).
# Run the workflows of one session back to back on one warm machine: the build folder carries over.
#
# usage: [VAR=value ...] bash lab/h200/run.sh WORKFLOW [ARG...]
#   tests            build, softmax_app, ctest twice (the second finds the driver's compute cache
#                    warm), a sweep interrupted by SIGINT and resumed
#   holdout          build against CUOP_RESULTS (results/), the GPU tests if TESTS=1 (TESTS_REGEX
#                    narrows them; TESTS_S 240), the sweep files SWEEPS into $OUT/regions.db
#                    (SWEEP_S 300), the holdout of each op of OPS (softmax gemm conv2d; N, SEED, AA;
#                    OP_S 150 each); the summaries last
#   compat           the sm_80 and sm_100a builds run on the H200 (ARCHS: other sets, e.g. 'native 75;86')
#   python           build, the PyTorch package pip-installed into PYTHON's environment against it,
#                    its tests and the model timing table (PYTHON_S 400)
#   norm             build, the norm and softmax GPU tests (TESTS_S 150), the PyTorch package and its
#                    tests (PYTHON_S 240; PYTHON_WHAT all, tests or bench), bench-norm (NORM_S 200)
#   norm-sweep       the norm GPU tests (GroupNorm's too) if TESTS=1, the sweeps SWEEPS (rmsnorm's
#                    and layernorm's; configs/groupnorm.yaml too) into DB (/tmp/norm.db, which
#                    does not come back; SEED_DB resumes) (SWEEP_S 330); unless EXPORT=0, each
#                    swept op exported (UPDATE=1: its swept problems into the committed results)
#                    and its file kept as $OUT/OP-<gpu>.json, with TRIALS=1 every trial of it as
#                    $OUT/OP-trials.csv.xz (lab/norm/trials_csv.py); unless COMPARE=0, rebuild
#                    against the export, reinstall the package, bench-norm (NORM_S 300; NORM_OPS
#                    narrows it: e.g. groupnorm). The exported tree moves to /tmp/norm-results,
#                    out of $OUT: of more files than a call brings back, none of them would come.
#   softmax          build, tests (TESTS=all, or softmax: the softmax GPU tests), the softmax sweep
#                    (SWEEP_S 400; SEED_DB resumes; ONLY_COLS=N only the problems of N columns,
#                    exported with --update) and once more (60 s: nothing measured twice), export,
#                    rebuild against it, tests, softmax_app, bench-softmax
#   conv-sweep       build, the conv GPU tests (TESTS_S 150), the sweep of SWEEP (configs/conv.yaml;
#                    CONV_SWEEP_S 300), export
#   conv-side        build, conv_app, the conv GPU tests, bench-conv of SWEEP (SIDE_S 600)
#   depthwise        build, the depthwise GPU tests (TESTS_S 240), the race of @depthwise-tc
#                    (CONV_SWEEP_S 330; DW_STRATEGY, DW_BATCH_BELOW_US), export --update, rebuild
#                    against it, conv_app, the conv dispatch tests, bench-conv @depthwise-tc (SIDE_S 300)
#   depthwise-side   build against results/, conv_app, bench-conv @depthwise-tc (SIDE_S 300)
#   gemm-build       build, every test (ctest -j4)
#   gemm-sweep       the softmax sweep, the bf16 GEMM sweep (GEMM_SWEEP_S 420), both exported
#   gemm-compare     rebuild against the export, gemm_app and softmax_app, the GPU tests,
#                    bench-softmax, bench-gemm full
#   gemm-side        build, gemm_app, the GPU tests (TESTS_S 150), bench-gemm (FULL=1: every bf16
#                    problem; GEMM_CMP_S 280), bench-softmax
#   gemm-quick       build, the GEMM GPU tests (SKIP_TESTS=1: none), the GEMM sweep of the short
#                    list (FULL=1: every bf16 problem; GEMM_SWEEP_S 240), export; unless COMPARE=0,
#                    rebuild against it, gemm_app, bench-gemm
#   gemm-f16         the f16 GEMM sweep (SEED_DB: the bf16 sweep's database; GEMM_SWEEP_S 180),
#                    export, rebuild, gemm_app, bench-gemm full bf16 (GEMM_CMP_S 230) and short f16
#   gemm-decode      build, the GEMM GPU tests (TEST_FILTER; SKIP_TESTS=1: none), the sweep of
#                    CONFIG (configs/gemm.yaml) --only ONLY (the bf16 decode problems), the
#                    per-family table
#   gemm-odd         build, the GEMM tests, the odd-K problems ODD in both dtypes, export --update,
#                    rebuild, the dispatch tests, bench-gemm of SIDE (ODD) in both dtypes
#   gemm-regions     cuop-tune, the GEMM region sweeps SWEEPS (configs/regions/gemm-misaligned.yaml
#                    and gemm-grid.yaml) into DB ($OUT/gemm-regions.db; SEED_DB resumes;
#                    SWEEP_S 240), export gemm --update, the build against that export, the GEMM
#                    holdout (N, SEED; OP_S 120); $OUT keeps the exported GEMM results of this GPU
#   conv-regions     cuop-tune, the depthwise GPU tests (TESTS_S 150; TESTS=0: none; TESTS_FILTER
#                    another GoogleTest filter), the sweeps
#                    SWEEPS (@depthwise-nchw-grid; none: stop after the tests; then
#                    @depthwise-nchw-corners in a second call,
#                    after the first call's export is in results/) into DB ($OUT/conv-regions.db;
#                    SWEEP_S 400), export conv2d --update; $OUT keeps the exported conv2d results of
#                    this GPU; with HOLDOUT=1 the build against that export and the conv2d holdout
#                    (N, SEED; OP_S 150) follow
#   gemm-probe       cuop-tune, the GPU tests TESTS_FILTER (wgmma's and mma's; TESTS_S 200; TESTS=0:
#                    none), the sweep of PROBE (lab/gemm/wgmma-probe.yaml; PROBE_S 150) into
#                    $OUT/gemm-probe.db, then lab/gemm/probe_table.py's table of it for FAMILY
#                    (wgmma)
#   gemm-table       build against results/, gemm_app, bench-gemm of TABLE_SHAPES (the short
#                    list; FULL=1: every bf16 problem) --dtype DTYPE --repetitions REPS --min-time
#                    MIN_TIME (bf16, 1, 0.2; GEMM_CMP_S 400)
#   engine-tests     every GPU test in one process each, their printed figures
#   aa SUITE...      gate-aa;  inject: gate-inject (REPS 4);  race;  scaleout
#   rebase           measure again what batched timing changes: the softmax sweep (SOFTMAX_S 240),
#                    the conv (ONLY_CONV; CONV_S 150) and GEMM (ONLY_GEMM; GEMM_S 300) problems
#                    whose committed winner is under 25 us, to $OUT/rebase-dbs.tar.xz
# The engine workflows (engine-tests to rebase) build only when there is no build (REBUILD=1: do),
# or when CUOP_GIT_REV names a revision: the build is configured again, so that the runs record it
# (the revision is a configure-time definition; an old build would record the revision it was
# configured with).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export OUT="${OUT:-/tmp/cuop-out}"
mkdir -p "$OUT"
export RUN_OUT="$OUT" BUILD_DIR="${BUILD_DIR:-$PWD/build}" CUDA_ARCHS="${CUDA_ARCHS:-90a}" JOBS="${JOBS:-16}"
export CUOP_CACHE_DIR="${CUOP_CACHE_DIR:-/tmp/cuop-cache}"

wf="${1:-}"
[[ $# -gt 0 ]] && shift
case "$wf" in
tests | holdout | compat | python | norm | norm-sweep | softmax | conv-sweep | conv-side | depthwise | depthwise-side | gemm-build | gemm-sweep | \
  gemm-compare | gemm-side | gemm-quick | gemm-f16 | gemm-decode | gemm-odd | gemm-regions | conv-regions | gemm-probe | \
  gemm-table | engine-tests | \
  aa | inject | \
  race | scaleout | rebase) ;;
*)
  sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  echo "lab/h200/run.sh: error: unknown workflow \"$wf\"" >&2
  exit 2
  ;;
esac
CUOP_CMAKE_ARGS=$(ci/gpu/setup-offline-deps.sh /tmp/cuop-deps) || exit 1
export CUOP_CMAKE_ARGS LD_LIBRARY_PATH="/tmp/cuop-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"

run() { ci/gpu/run.sh "$@"; }
within() {  # SECONDS PHASE [ARG...]: the phase, stopped after SECONDS (exit 124)
  local s=$1
  shift
  timeout "$s" ci/gpu/run.sh "$@"
}
built() { [[ -x "$BUILD_DIR/tuner/cuop-tune" && "${REBUILD:-0}" != 1 && -z "${CUOP_GIT_REV:-}" ]] || run build; }
# cuop-tune, and with TESTS=1 (the default) the GPU tests beside it, so that TESTS_S is the tests'
# own time.
build_tune_and_tests() {
  if [[ "${TESTS:-1}" == 1 ]]; then run build cuop-tune cuop_gpu_tests; else run build cuop-tune; fi
}
GEMM_GPU_TESTS='*gemm*:*cublaslt*'
CONV_GPU_TESTS='*conv*:*cudnn*:*fft*'
# The short list of GEMM shapes (ci/gpu/run.sh's), for bench-gemm `short` or FULL=1 `full`, and as
# the sweep's --only keys of a dtype.
GEMM_SHAPES=$(sed -n 's/^GEMM_SHAPES="\(.*\)"$/\1/p' ci/gpu/run.sh)
[[ -n "$GEMM_SHAPES" ]] || { echo "lab/h200/run.sh: error: no GEMM_SHAPES in ci/gpu/run.sh" >&2; exit 1; }
shapes() { if [[ "${FULL:-0}" == 1 ]]; then echo full; else echo short; fi; }
# OP's file that export just wrote, copied to $OUT/OP-<gpu>.json so that it comes back: the newest
# under $OUT/results/OP (the others are copies of results/; export names it, so its naming rule is
# not restated here).
keep_export() {
  local exported
  exported=$(find "$OUT/results/$1" -name '*.json' -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2-)
  cp "$exported" "$OUT/$1-${exported##*/}"
}
only_keys() {  # DTYPE: the short list (FULL=1: every problem) as --only keys
  if [[ "${FULL:-0}" == 1 ]]; then echo "gemm_$1_"; else echo "gemm_$1_${GEMM_SHAPES//,/,gemm_$1_}"; fi
}

case "$wf" in
tests)
  run build || exit 1
  run apps softmax_app
  run tests -j4
  run tests -j4
  run interrupt 95
  ;;
holdout)
  RESULTS="${CUOP_RESULTS:-$PWD/results}" run build || exit 1
  [[ "${TESTS:-0}" == 1 ]] && within "${TESTS_S:-240}" tests -L gpu -j4 ${TESTS_REGEX:+-R "$TESTS_REGEX"}
  # shellcheck disable=SC2086
  [[ -n "${SWEEPS:-}" ]] && DB="$OUT/regions.db" within "${SWEEP_S:-300}" sweep $SWEEPS
  status=0
  for op in ${OPS:-softmax gemm conv2d}; do
    within "${OP_S:-150}" holdout "$op" >/dev/null
    rc=$?
    echo "holdout $op: exit $rc"
    ((rc > status)) && status=$rc
  done
  # shellcheck disable=SC2086
  run report ${OPS:-softmax gemm conv2d}
  exit "$status"
  ;;
compat)
  # shellcheck disable=SC2086
  run compat ${ARCHS:-}
  ;;
python)
  run build || exit 1
  within "${PYTHON_S:-400}" python
  ;;
norm)
  run build || exit 1
  within "${TESTS_S:-150}" gpu-tests '*norm*:*softmax*'
  within "${PYTHON_S:-240}" python "${PYTHON_WHAT:-all}"
  within "${NORM_S:-200}" bench-norm
  ;;
norm-sweep)
  export DB="${DB:-/tmp/norm.db}"
  sweeps="${SWEEPS:-configs/rmsnorm.yaml configs/layernorm.yaml}"
  built || exit 1
  [[ "${TESTS:-0}" != 1 ]] || within "${TESTS_S:-150}" gpu-tests '*norm*:*softmax*'
  # shellcheck disable=SC2086
  within "${SWEEP_S:-330}" sweep $sweeps
  [[ "${EXPORT:-1}" == 1 ]] || exit 0
  # Each swept op (the files' `op:`) once; UPDATE=1: only the swept problems (region sweeps).
  ops=$(for spec in $sweeps; do sed -n 's/^op: *\([a-z0-9_]*\).*/\1/p' "$spec" | head -1; done | sort -u)
  for op in $ops; do
    run export "$op" ${UPDATE:+--update} || exit 1
    keep_export "$op"
    [[ "${TRIALS:-0}" == 1 ]] && python3 lab/norm/trials_csv.py "$DB" "$op" | xz > "$OUT/$op-trials.csv.xz"
  done
  rm -rf /tmp/norm-results && mv "$OUT/results" /tmp/norm-results
  [[ "${COMPARE:-1}" == 1 ]] || exit 0
  RESULTS=/tmp/norm-results run build || exit 1
  within 120 python install
  within "${NORM_S:-300}" bench-norm
  ;;
softmax)
  export DB="$OUT/h200.db"
  spec=configs/softmax.yaml update=()
  [[ -n "${ONLY_COLS:-}" ]] && spec="@softmax-cols=$ONLY_COLS" update=(--update)
  softmax_tests() {
    if [[ "${TESTS:-all}" == all ]]; then run tests -j4 "$@"; else run gpu-tests '*softmax*'; fi
  }
  run build || exit 1
  softmax_tests
  within "${SWEEP_S:-400}" sweep "$spec"
  within 60 sweep "$spec"
  run export softmax "${update[@]}" || exit 1
  RESULTS="$OUT/results" run build || exit 1
  run apps softmax_app
  softmax_tests -L gpu
  run bench-softmax
  ;;
conv-sweep)
  export DB="$OUT/h200-conv.db"
  run build cuop-tune cuop_gpu_tests || exit 1
  within "${TESTS_S:-150}" gpu-tests "$CONV_GPU_TESTS"
  within "${CONV_SWEEP_S:-300}" sweep "${SWEEP:-configs/conv.yaml}"
  run export conv2d
  ;;
conv-side)
  run build cuop-tune cuop_gpu_tests conv_app conv_bench || exit 1
  run apps conv_app
  within "${TESTS_S:-150}" gpu-tests "$CONV_GPU_TESTS"
  within "${SIDE_S:-600}" bench-conv "${SWEEP:-configs/conv.yaml}"
  ;;
depthwise)
  export DB="$OUT/h200-depthwise.db"
  run build cuop-tune cuop_gpu_tests || exit 1
  within "${TESTS_S:-240}" gpu-tests '*depthwise*'
  within "${CONV_SWEEP_S:-330}" sweep @depthwise-tc
  run export conv2d --update || exit 1
  RESULTS="$OUT/results" run build cuop_gpu_tests conv_app conv_bench || exit 1
  run apps conv_app
  run gpu-tests '*conv*dispatch*'
  within "${SIDE_S:-300}" bench-conv @depthwise-tc
  ;;
depthwise-side)
  run build conv_app conv_bench || exit 1
  run apps conv_app
  within "${SIDE_S:-300}" bench-conv @depthwise-tc
  ;;
gemm-build)
  run build || exit 1
  run tests -j4 --timeout 300
  ;;
gemm-sweep)
  export DB="$OUT/h200.db"
  run sweep configs/softmax.yaml
  within "${GEMM_SWEEP_S:-420}" sweep configs/gemm.yaml --only gemm_bf16_
  run export softmax
  run export gemm
  ;;
gemm-compare)
  RESULTS="$OUT/results" run build || exit 1
  run apps gemm_app softmax_app
  run tests -L gpu -j2 --timeout 300
  run bench-softmax
  run bench-gemm full --dtype bf16
  ;;
gemm-side)
  run build || exit 1
  run apps gemm_app
  within "${TESTS_S:-150}" tests -L gpu -j2 --timeout 140
  within "${GEMM_CMP_S:-280}" bench-gemm "$(shapes)" --dtype bf16
  within 90 bench-softmax
  ;;
gemm-quick)
  export DB="$OUT/h200.db"
  run build cuop-tune cuop_gpu_tests gemm_app gemm_bench || exit 1
  [[ "${SKIP_TESTS:-0}" == 1 ]] || within 90 gpu-tests "$GEMM_GPU_TESTS"
  within "${GEMM_SWEEP_S:-240}" sweep configs/gemm.yaml --only "$(only_keys bf16)"
  run export gemm || exit 1
  [[ "${COMPARE:-1}" == 1 ]] || exit 0
  RESULTS="$OUT/results" run build gemm_app gemm_bench || exit 1
  run apps gemm_app
  within 240 bench-gemm "$(shapes)" --dtype bf16
  ;;
gemm-f16)
  export DB="$OUT/h200.db"
  run build cuop-tune gemm_app gemm_bench || exit 1
  within "${GEMM_SWEEP_S:-180}" sweep configs/gemm.yaml --only gemm_f16_
  run export gemm || exit 1
  RESULTS="$OUT/results" run build gemm_app gemm_bench || exit 1
  run apps gemm_app
  within "${GEMM_CMP_S:-230}" bench-gemm full --dtype bf16
  within 70 bench-gemm short --dtype f16
  ;;
gemm-decode)
  export DB="$OUT/h200.db"
  run build cuop-tune cuop_gpu_tests || exit 1
  [[ "${SKIP_TESTS:-0}" == 1 ]] || within "${TESTS_S:-150}" gpu-tests "${TEST_FILTER:-$GEMM_GPU_TESTS}"
  within "${GEMM_SWEEP_S:-240}" sweep "${CONFIG:-configs/gemm.yaml}" --only "${ONLY:-gemm_bf16_1x,gemm_bf16_16x,gemm_bf16_64x}"
  python3 scripts/gemm_families.py "$DB" | tee "$OUT/gemm-families.md"
  ;;
gemm-odd)
  export DB="$OUT/h200.db"
  odd="${ODD:-127x1031x4093,4097x4097x4097,4096x4096x4093}"
  run build cuop-tune cuop_gpu_tests gemm_app gemm_bench || exit 1
  [[ "${SKIP_TESTS:-0}" == 1 ]] || within "${TESTS_S:-150}" gpu-tests "${TEST_FILTER:-$GEMM_GPU_TESTS}"
  within "${GEMM_SWEEP_S:-200}" sweep configs/gemm.yaml --only "gemm_bf16_${odd//,/,gemm_bf16_},gemm_f16_${odd//,/,gemm_f16_}"
  run export gemm --update || exit 1
  RESULTS="$OUT/results" run build gemm_app gemm_bench cuop_gpu_tests || exit 1
  within 120 gpu-tests '*gemm_dispatch*'
  for dt in bf16 f16; do within 100 bench-gemm "${SIDE:-$odd}" --dtype "$dt"; done
  ;;
gemm-regions)
  export DB="${DB:-$OUT/gemm-regions.db}"
  run build cuop-tune || exit 1
  # shellcheck disable=SC2086
  within "${SWEEP_S:-240}" sweep ${SWEEPS:-configs/regions/gemm-misaligned.yaml configs/regions/gemm-grid.yaml}
  run export gemm --update || exit 1
  RESULTS="$OUT/results" run build || exit 1
  within "${OP_S:-120}" holdout gemm >/dev/null
  rc=$?
  keep_export gemm
  run report gemm
  exit "$rc"
  ;;
conv-regions)
  export DB="${DB:-$OUT/conv-regions.db}"
  build_tune_and_tests || exit 1
  [[ "${TESTS:-1}" == 1 ]] && within "${TESTS_S:-150}" gpu-tests "${TESTS_FILTER:-*conv_depthwise*}"
  [[ "${SWEEPS:-@depthwise-nchw-grid}" == none ]] && exit 0
  # shellcheck disable=SC2086
  within "${SWEEP_S:-400}" sweep ${SWEEPS:-@depthwise-nchw-grid}
  run export conv2d --update || exit 1
  keep_export conv2d
  [[ "${HOLDOUT:-0}" == 1 ]] || exit 0
  RESULTS="$OUT/results" run build || exit 1
  within "${OP_S:-150}" holdout conv2d >/dev/null
  rc=$?
  run report conv2d
  exit "$rc"
  ;;
gemm-probe)
  export DB="${DB:-$OUT/gemm-probe.db}"
  build_tune_and_tests || exit 1
  [[ "${TESTS:-1}" == 1 ]] && within "${TESTS_S:-200}" gpu-tests "${TESTS_FILTER:-*gemm_wgmma*:*gemm_mma*}"
  within "${PROBE_S:-150}" sweep "${PROBE:-lab/gemm/wgmma-probe.yaml}"
  rc=$?
  python3 lab/gemm/probe_table.py "$DB" "${FAMILY:-wgmma}"
  exit "$rc"
  ;;
gemm-table)
  run build gemm_app gemm_bench || exit 1
  run apps gemm_app
  within "${GEMM_CMP_S:-400}" bench-gemm "${TABLE_SHAPES:-$(shapes)}" --dtype "${DTYPE:-bf16}" \
    --repetitions "${REPS:-1}" --min-time "${MIN_TIME:-0.2}"
  ;;
engine-tests) built && run gpu-tests ;;
aa) built && run gate-aa "$@" ;;
inject) built && run gate-inject ;;
race) built && run race && run report ;;
scaleout) built && run scaleout && run report ;;
rebase)
  built || exit 1
  rm -rf /tmp/rebase && mkdir -p /tmp/rebase
  DB=/tmp/rebase/softmax.db within "${SOFTMAX_S:-240}" sweep configs/softmax.yaml
  DB=/tmp/rebase/conv2d.db within "${CONV_S:-150}" sweep configs/conv.yaml --only \
    "${ONLY_CONV:-32x14x14x256_k256_r3x3,32x56x56x256_k64_r1x1,32x28x28x128_k128_r3x3,32x28x28x256_k256_r7x7,32x7x7x512_k512_r3x3}"
  DB=/tmp/rebase/gemm.db within "${GEMM_S:-300}" sweep configs/gemm.yaml --only \
    "${ONLY_GEMM:-1x1024x4096,16x1024x4096,64x1024x4096,128x1024x4096,512x1024x4096,1000x1000x1000,1x4096x4096,16x4096x4096,64x4096x4096,128x4096x4096,1x6144x4096,16x6144x4096,64x6144x4096,128x6144x4096}"
  tar -C /tmp/rebase -cJf "$OUT/rebase-dbs.tar.xz" . && ls -la "$OUT/rebase-dbs.tar.xz"
  ;;
esac
