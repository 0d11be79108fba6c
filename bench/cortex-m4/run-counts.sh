#!/bin/sh
# SPDX-License-Identifier: MIT
# run-counts.sh - build the Cortex-M4 images and the harness, then count.
#
#   bench/cortex-m4/run-counts.sh [harness options]
#
# Harness options (see host/counts.c or README.md): --check (compare with bounds.h),
# --only GROUP (random, mixed, sweep-fresh, sweep-frag, sweep-align, sweep-realloc,
# construct), --trace WORKLOAD#OP, --no-it-skipped. Tables go to the terminal, every
# figure to <build>/m4-counts.csv. The build goes to $TLSF_M4_BUILD_DIR (default: build-m4
# at the top of the repository). After an edit of core/, just run it again: only the
# firmware images are rebuilt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${TLSF_M4_BUILD_DIR:-$root/build-m4}

generator=""
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
    generator="-G Ninja"
fi
# shellcheck disable=SC2086
cmake -S "$here" -B "$build" $generator -DCMAKE_BUILD_TYPE=Release | grep "Cortex-M4" >&2 || true
if ! grep -q "^TLSF_M4_CC:FILEPATH=/" "$build/CMakeCache.txt" ||
   ! grep -q "^UNICORN_FOUND:INTERNAL=1" "$build/CMakeCache.txt"; then
    echo "run-counts.sh: arm-none-eabi-gcc and Unicorn 2 (pkg-config unicorn) are needed" >&2
    exit 1
fi
cmake --build "$build" --target tlsf_m4_counts tlsf_m4_images >/dev/null
exec "$build/tlsf_m4_counts" --csv "$build/m4-counts.csv" "$@" "@$build/m4-images.txt"
