#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: libFuzzer on the heap (ASan + UBSan) for a bounded time (FUZZ_SECONDS, default 120).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-120} exec "$root/scripts/fuzz.sh" "${1:-$root/build/test/fuzz}"
