#!/usr/bin/env bash
# Installs the Debian packages cuop-tune builds against (DESIGN.md, Dependencies). The CUDA 13
# toolkit and cuDNN 9 must already be present (/usr/local/cuda). Idempotent; quiet when done.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config git libyaml-cpp-dev libsqlite3-dev libcli11-dev
          nlohmann-json3-dev libfmt-dev libmuparser-dev libgtest-dev libbenchmark-dev)

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
