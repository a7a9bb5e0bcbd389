#!/usr/bin/env bash
# Installs the Debian packages cuop-tune builds against (DESIGN.md, Dependencies). The CUDA 13
# toolkit and cuDNN 9 must already be present (/usr/local/cuda). Idempotent; quiet when done.
# --fuzz: also clang and its compiler runtime (libFuzzer, ASan, UBSan) for scripts/fuzz.sh.
# --lint: also clang-format and clang-tidy for scripts/format.sh and scripts/tidy.sh, and lizard
# (PyPI) for ci/check_sizes.py.
# --python: also python3-venv, for the Python package's CI job (ci/jobs/python.sh).
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config git libyaml-cpp-dev libsqlite3-dev libcli11-dev
          nlohmann-json3-dev libfmt-dev libmuparser-dev libgtest-dev libbenchmark-dev
          python3 python3-yaml python3-matplotlib)  # python3: the CI scripts and their tests (ci/, docs/ci.md);
                                                    # matplotlib: scripts/report.py's plots
lint=0
for option in "$@"; do
  case "$option" in
    --fuzz) packages+=(clang libclang-rt-dev) ;;  # Debian's default clang; libclang-rt-dev: libFuzzer, sanitizers
    --lint) packages+=(clang-format clang-tidy python3-pip); lint=1 ;;
    --python) packages+=(python3-venv) ;;
    *)
      echo "install-deps: error: unknown option \"$option\" (--fuzz, --lint, --python)" >&2
      exit 2
      ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: error: the CUDA 13 toolkit (nvcc) is not installed (expected /usr/local/cuda)" >&2
  exit 1
fi

# lizard measures functions for the size limits (ci/check_sizes.py); Debian has no package of it,
# so PyPI's, pinned, goes into the cache where ci/check_sizes.py looks. A failed install fails:
# the lint steps need it.
tools="${XDG_CACHE_HOME:-$HOME/.cache}/cuop-tune/tools"
lizard_version=1.24.3
if ((lint)) && [[ "$(cat "$tools/lizard/.version" 2>/dev/null)" != "$lizard_version" ]]; then
  echo "install-deps: installing lizard $lizard_version (PyPI) into $tools/lizard"
  rm -rf "$tools/lizard"
  python3 -m pip install -q --disable-pip-version-check --target "$tools/lizard" "lizard==$lizard_version" \
      >/dev/null 2>&1 || { echo "install-deps: error: could not install lizard (PyPI)" >&2; exit 1; }
  echo "$lizard_version" >"$tools/lizard/.version"
fi

# scripts/report.py draws with matplotlib: Debian's package serves Debian's python3; a python3
# of another origin first on PATH (pyenv, a venv) gets PyPI's, pinned. Without it the report's
# test fails, so a failed install fails here.
matplotlib_version=3.9.2
if ! python3 -c "import matplotlib" >/dev/null 2>&1; then
  echo "install-deps: installing matplotlib $matplotlib_version (PyPI) for $(command -v python3)"
  python3 -m pip install -q --disable-pip-version-check "matplotlib==$matplotlib_version" >/dev/null 2>&1 ||
    { echo "install-deps: error: could not install matplotlib (PyPI) for $(command -v python3)" >&2; exit 1; }
fi

# cuobjdump reads the library's fatbins for the compatibility matrix (docs/ci.md). The toolkit's
# packages ship it (cuda-cuobjdump, in NVIDIA's devel containers); a toolkit installed from PyPI
# wheels does not: take PyPI's nvidia-cuda-cuobjdump into the cache ci/compat_matrix.py looks in.
if ! command -v cuobjdump >/dev/null && [[ ! -x /usr/local/cuda/bin/cuobjdump ]] &&
   [[ ! -x "$tools/nvidia/cu13/bin/cuobjdump" ]]; then
  echo "install-deps: installing cuobjdump (PyPI nvidia-cuda-cuobjdump) into $tools"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tools" \
      "nvidia-cuda-cuobjdump>=13,<14" >/dev/null 2>&1 ||
    echo "install-deps: warning: could not install cuobjdump: the compatibility matrix test will be skipped" >&2
fi
