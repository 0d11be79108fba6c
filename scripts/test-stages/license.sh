#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: the project is MIT licensed (LICENSE) and every source file says so (scripts/spdx.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
grep -q "MIT License" "$root/LICENSE"
exec "$root/scripts/spdx.sh" --check
