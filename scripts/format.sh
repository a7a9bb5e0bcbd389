#!/usr/bin/env bash
# clang-format on the project's C++ and CUDA sources (.clang-format; docs/ci.md, Code checks).
#
#   scripts/format.sh [--check] [--changed BASE] [FILE...]
#
# Without FILE: every tracked .cpp, .hpp, .cu, .cuh and .h file; --changed BASE: those of them that
# differ from the commit BASE (git diff BASE). Rewrites the files in place; --check rewrites nothing
# and exits 1 when a file is not formatted, naming each (CI runs it on every file).
set -euo pipefail
cd "$(dirname "$0")/.."

check=0 base="" files=()
while (($#)); do
  case "$1" in
    --check) check=1 ;;
    --changed)
      [[ $# -ge 2 ]] || { echo "format: error: --changed needs a commit" >&2; exit 2; }
      base=$2
      shift
      ;;
    -*) echo "format: error: unknown option \"$1\" (--check, --changed BASE)" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done

./scripts/install-deps.sh --lint
sources=('*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
if ((${#files[@]} == 0)); then
  if [[ -n "$base" ]]; then
    git rev-parse --verify -q "$base^{commit}" >/dev/null ||
      { echo "format: error: \"$base\" is not a commit" >&2; exit 2; }
    mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- "${sources[@]}")
  else
    mapfile -t files < <(git ls-files -- "${sources[@]}")
  fi
fi
((${#files[@]})) || { echo "format: no files"; exit 0; }

if ((check == 0)); then
  clang-format -i "${files[@]}"
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "format: ${#bad[@]} of ${#files[@]} files are not formatted (scripts/format.sh FILE... rewrites them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format: ${#files[@]} files ok"
