#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A CMake workload for the shim tests: cmake --version, a string/list/JSON-heavy cmake -P
# script, then configuring and building a small C project (so the compiler, assembler,
# linker and make run under the shim too) and running the result.
#   cmake_workload.sh <cmake> <c compiler>
set -euo pipefail
cmake=${1:-cmake}
cc=${2:-cc}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --version | sed -n 1p
"$cmake" -DOUT="$tmp/script.txt" -P "$here/workload.cmake"
mkdir "$tmp/src"
cat > "$tmp/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(hello C)
add_executable(hello main.c)
CM
cat > "$tmp/src/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    unsigned long sum = 0;
    for (int i = 1; i <= 1000; ++i) {
        char *p = malloc((size_t)i * 13);
        memset(p, i & 0xff, (size_t)i * 13);
        sum += (unsigned char)p[i * 13 - 1];
        free(p);
    }
    printf("hello from a program built under the shim: %lu\n", sum);
    return 0;
}
C
"$cmake" -S "$tmp/src" -B "$tmp/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/hello"
