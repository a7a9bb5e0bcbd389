#!/usr/bin/env bash
# The Python package (docs/python.md) in CI: a virtual environment with the torch of
# python/requirements-ci.txt, `pip install --no-build-isolation .` into it against an existing
# build folder (so only the ops' library is compiled), then the Python tests. Without a GPU the
# tests that run kernels skip and the rest run: fake implementations, checks, tracing, modules.
#
#   ci/jobs/python.sh setup             the environment (VENV: build-venv), about 3 GB of wheels
#   ci/jobs/python.sh test [BUILD_DIR]  install into it, building in BUILD_DIR (an existing build
#                                       gains the ops' target; default: setup.py's build-python,
#                                       the library for the default architectures), run the tests
#   ci/jobs/python.sh                   the Debian packages (scripts/install-deps.sh --python), then
#                                       both (the hosted CI's python job)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${VENV:-$PWD/build-venv}"

setup() {
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements-ci.txt
  "$venv/bin/python" -c 'import torch; print("python job: torch", torch.__version__)'
}

run_tests() {
  local build="${1:-build-python}"
  CUOP_BUILD_DIR="$(realpath "$build")" "$venv/bin/python" -m pip install --quiet \
    --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall .
  # From outside the tree: the tests import the installed package, not python/cuop.
  (cd /tmp && "$venv/bin/python" -m unittest discover -s "$OLDPWD/python/tests" -v)
}

case "${1:-all}" in
  setup) setup ;;
  test) run_tests "${2:-}" ;;
  all) ./scripts/install-deps.sh --python && setup && run_tests ;;
  *) echo "usage: ci/jobs/python.sh [setup | test [BUILD_DIR]]" >&2; exit 2 ;;
esac
