#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Format every C and C++ source the repository tracks with clang-format (.clang-format).
#
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing; list the files that are not formatted and
#                              exit 1 if there is one (what CI runs)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if ! command -v clang-format >/dev/null; then
  echo "format: clang-format is not installed (scripts/install-deps.sh)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [[ "${1:-}" != "--check" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
unformatted=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if ((${#unformatted[@]})); then
  echo "format: ${#unformatted[@]} of ${#files[@]} files differ from clang-format's output" \
       "(run scripts/format.sh):"
  printf '  %s\n' "${unformatted[@]}"
  exit 1
fi
echo "format: all ${#files[@]} sources formatted ($(clang-format --version | grep -o 'version [0-9.]*'))"
