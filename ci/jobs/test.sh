#!/usr/bin/env bash
# CPU job `test`: the README's test command (scripts/test.sh) with the preset ci, which turns
# compiler warnings into errors. GPU tests report skipped.
# shellcheck source=ci/jobs/common.sh
source "$(dirname "$0")/common.sh"
CUOP_PRESET=ci BUILD_DIR="$BUILD_DIR" exec ./scripts/test.sh "$@"
