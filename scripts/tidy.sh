#!/usr/bin/env bash
# clang-tidy (.clang-tidy: a curated set, warnings as errors) on the project's host sources, with
# the compile commands of a configured build (docs/ci.md, Code checks).
#
#   scripts/tidy.sh [--build DIR] [--changed BASE | --all | FILE...]
#
# FILE: .cpp files. --changed BASE: the .cpp files that differ from the commit BASE, and those
# that include a header that does (what .ci/run checks: a whole-tree run takes about 20 CPU
# minutes). --all: every .cpp file of the build. Exits 1 when clang-tidy reports anything.
# Environment: JOBS (nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

build=build base="" all=0 files=()
while (($#)); do
  case "$1" in
    --build) build=${2:?}; shift ;;
    --changed) base=${2:?}; shift ;;
    --all) all=1 ;;
    -*) echo "tidy: error: unknown option \"$1\" (--build DIR, --changed BASE, --all)" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done
[[ -f "$build/compile_commands.json" ]] ||
  { echo "tidy: error: no $build/compile_commands.json (configure the build first: scripts/build.sh)" >&2; exit 2; }

./scripts/install-deps.sh --lint
# The .cpp files the build compiles (CUDA files are nvcc's and stay out).
mapfile -t known < <(python3 -c 'import json,os,sys
root=os.getcwd()+"/"
for e in json.load(open(sys.argv[1])):
    f=os.path.normpath(os.path.join(e["directory"], e["file"]))
    if f.endswith(".cpp") and f.startswith(root) and "/build" not in f[len(root)-1:]: print(f[len(root):])' \
  "$build/compile_commands.json" | sort -u)

if ((all)); then
  files=("${known[@]}")
elif [[ -n "$base" ]]; then
  git rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "tidy: error: \"$base\" is not a commit" >&2; exit 2; }
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- '*.cpp' '*.hpp' '*.h')
  wanted=()
  for f in "${changed[@]}"; do
    case "$f" in
      *.cpp) wanted+=("$f") ;;
      *) mapfile -t -O "${#wanted[@]}" wanted < <(grep -lF "#include \"${f#*/include/}\"" "${known[@]}" 2>/dev/null || true) ;;
    esac
  done
  mapfile -t files < <(printf '%s\n' "${wanted[@]}" | sort -u | grep -xFf <(printf '%s\n' "${known[@]}") || true)
fi
((${#files[@]})) || { echo "tidy: no files"; exit 0; }

echo "tidy: ${#files[@]} files"
start=$SECONDS
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! printf '%s\n' "${files[@]}" |
    xargs -P "${JOBS:-$(nproc)}" -n 1 clang-tidy -p "$build" --quiet \
      --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then  # GCC's flags in the commands
  grep -E '(error|warning): ' "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: FAILED after $((SECONDS - start)) s" >&2
  exit 1
fi
echo "tidy: ok ($((SECONDS - start)) s)"
