#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every source file of the project says its license (MIT, LICENSE) in an SPDX line near
# its top.
#   scripts/spdx.sh           add the line where it is missing
#   scripts/spdx.sh --check   list the files without it; exit 1 if there are any (CI)
# Sources: C, C++, assembly, linker scripts, CMake, shell, Python, gnuplot. Data files
# (JSON, corpora, pictures) and Markdown are not sources.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tag="SPDX-License-Identifier: MIT"
check=0
[[ "${1:-}" == "--check" ]] && check=1
missing=0
while IFS= read -r file; do
  head -n 5 "$file" | grep -q "$tag" && continue
  if ((check)); then
    echo "spdx: no license line: $file"
    missing=$((missing + 1))
    continue
  fi
  case "$file" in
  *.c | *.h | *.S | *.ld) line="/* $tag */" ;;
  *.cpp | *.hpp) line="// $tag" ;;
  *) line="# $tag" ;;
  esac
  if head -n 1 "$file" | grep -q '^#!'; then
    { head -n 1 "$file"; echo "$line"; tail -n +2 "$file"; } >"$file.spdx"
  else
    { echo "$line"; cat "$file"; } >"$file.spdx"
  fi
  chmod --reference="$file" "$file.spdx"
  mv "$file.spdx" "$file"
done < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.S' '*.ld' '*.cmake' '*.in' '*.sh' '*.py' '*.gp' \
  'CMakeLists.txt' '*/CMakeLists.txt' '.ci/run' | grep -v '\.clang-format$')
if ((check)); then
  if ((missing)); then
    echo "spdx: $missing file(s) without '$tag' in their first 5 lines (scripts/spdx.sh adds it)"
    exit 1
  fi
  echo "spdx: every source file carries '$tag'"
fi
