#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: every relative link in README.md and docs/*.md points at an existing file (and a
# #section at an existing heading) - scripts/check-doc-links.py.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec python3 "$root/scripts/check-doc-links.py"
