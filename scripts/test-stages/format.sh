#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: every C and C++ source is formatted as .clang-format says. Usage: format.sh [dir]
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/format.sh" --check
