#!/usr/bin/env bash
# For a GPU host that has the CUDA toolkit, yaml-cpp, CLI11, fmt, nlohmann-json and GoogleTest but
# no SQLite / muparser headers and no network (DESIGN.md): unpack the Debian packages carried in
# .deps/ (fetched beforehand with `apt-get download libsqlite3-dev libmuparser-dev libmuparser2v5`)
# into a prefix and print the CMake arguments that use it.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix="${1:-/tmp/cuop-deps}"
mkdir -p "$prefix"
for deb in .deps/*.deb; do dpkg -x "$deb" "$prefix"; done
lib="$prefix/usr/lib/x86_64-linux-gnu"
# muparser ships no .so symlink in the runtime package when -dev is unpacked alone: make sure.
[[ -e "$lib/libmuparser.so" ]] || ln -sf "$(ls "$lib"/libmuparser.so.2* | head -1)" "$lib/libmuparser.so"
echo "-DCMAKE_PREFIX_PATH=$prefix/usr -DSQLite3_INCLUDE_DIR=$prefix/usr/include -DSQLite3_LIBRARY=$lib/libsqlite3.a -DMUPARSER_INCLUDE_DIR=$prefix/usr/include -DMUPARSER_LIBRARY=$lib/libmuparser.so"
