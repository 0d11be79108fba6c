#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run every test configuration: the command CI runs (.ci/run).
#
#   scripts/test-all.sh            all configurations
#   scripts/test-all.sh gcc m32    only the named ones
#
# Installs the Debian packages it needs first (scripts/install-deps.sh, as root). Each
# configuration gets its own build directory under build/test/. Ends with one line
# "test-all: N passed, M failed".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${TLSF_TEST_BUILD_DIR:-$root/build/test}
jobs=$(nproc)
"$root/scripts/install-deps.sh"

# The real programs under the malloc shim and the valgrind runs take minutes: the gcc
# configuration runs them, the others skip them.
quick="-DTLSF_SHIM_PROGRAM_TESTS=OFF -DTLSF_VALGRIND_TESTS=OFF"

# name | cmake arguments | build targets (empty: all) | ctest label regex (empty: all;
# the last field, so it may contain "|")
# The first two build and run everything; the others exist for the core (and the C++
# layer where the standard or the word size matters) and build only that, to keep CI
# short. The sanitizer configuration also fills blocks (TLSF_FILL, test/core/test_fill.cpp),
# so the patterns are proven together with ASan's poisoning. portable-small takes the
# choices of a small target: no bit-scan builtins, few lists, and the smallest code
# (TLSF_CODE=0: list updates with branches, as on Cortex-M).
# The C++ layer's test programs (label cpp), for the configurations that build only them:
cpp_suites="tlsf_cpp_test tlsf_cpp_misuse_test tlsf_cpp_global_new_test tlsf_cpp_global_new_grow_test tlsf_cpp_global_new_overaligned_test tlsf_cpp_no_exceptions_test tlsf_cpp_config_test tlsf_cpp_config_global_new_test tlsf_cpp_default_heap_adopt_test tlsf_cpp_default_heap_adopt_late_test tlsf_cpp_sanitizer_new_test heap_threads_stress"
# clang-tsan: the C++ layer under clang's ThreadSanitizer, whose runtime defines operator new,
# so <tlsf/global_new.hpp> leaves it to TSan there (TLSF_CPP_REPLACE_GLOBAL_NEW); the suites
# of the replaced operator new are not built (test/cpp/CMakeLists.txt). Every C++ test
# program is built with the strict warnings (-Wzero-as-null-pointer-constant,
# -Wold-style-cast, gcc -Wuseless-cast) in every configuration: gcc in gcc, m32 and
# asan-ubsan-checked, clang in clang-cxx20, cxx23 and clang-tsan.
# The layout and checks of the Cortex-M4 "checks2" image (bench/cortex-m4/CMakeLists.txt: 8-byte
# alignment, 16 classes a row, blocks below 256 MiB, sealed headers with a seal word, no cache)
# on a 32-bit host: the hardening tests and the fuzzer's adversary on the code the image runs.
m4layout="-DTLSF_ALIGN_LOG2=3 -DTLSF_SL_INDEX_LOG2=4 -DTLSF_MAX_BLOCK_LOG2=28 -DTLSF_CHECKS=2 -DTLSF_CACHE=0"
cpp_tsan_suites="tlsf_cpp_test tlsf_cpp_sanitizer_new_test heap_threads_stress"
# The mattconte layer's tests and programs (label compat; test/compat), for m32: mattconte's
# 32-bit granule and the layer's level-1 checks there.
compat_suites="tlsf_compat_tests compat_link_c compat_link_cxx compat_dlsym compat_native_probe example_mattconte_heaps"
configs=(
  "gcc|-DCMAKE_BUILD_TYPE=Release -DTLSF_BUILD_M4=ON||"
  "clang-cxx20|-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_STANDARD=20 $quick||"
  "asan-ubsan-checked|-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLSF_SANITIZE=address,undefined -DTLSF_CHECKS=2 -DTLSF_FILL=1 $quick||"
  "m32|-DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=$root/cmake/i386-linux.cmake -DTLSF_GTEST_FROM_SOURCE=ON|tlsf_core_tests $cpp_suites fuzz_replay $compat_suites|core|cpp|adversary|compat"
  "m32-m4layout|-DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=$root/cmake/i386-linux.cmake -DTLSF_GTEST_FROM_SOURCE=ON $m4layout|tlsf_core_tests fuzz_replay|core|adversary"
  "portable-small|-DCMAKE_BUILD_TYPE=Release -DTLSF_USE_BUILTIN_BITSCAN=0 -DTLSF_SL_INDEX_LOG2=3 -DTLSF_MAX_BLOCK_LOG2=20 -DTLSF_CODE=0|tlsf_core_tests|core"
  "lean|-DCMAKE_BUILD_TYPE=Release -DTLSF_STATS=0 -DTLSF_CHECKS=0|tlsf_core_tests|core"
  "cxx23|-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=23 -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++|$cpp_suites heap_threads_stress_tsan|cpp"
  "clang-tsan|-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTLSF_SANITIZE=thread $quick|$cpp_tsan_suites|cpp"
)

mkdir -p "$out"
wanted=("$@")
passed=0 failed=0 failures=()
summary=()
for entry in "${configs[@]}"; do
  IFS='|' read -r name args targets label <<<"$entry"
  if ((${#wanted[@]})) && [[ ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  dir="$out/$name"
  echo "=== $name: cmake $args${targets:+ (targets: $targets)}"
  start=$SECONDS
  # shellcheck disable=SC2086
  if ! cmake -S "$root" -B "$dir" $args >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"; failed=$((failed + 1)); failures+=("$name (configure)"); continue
  fi
  # shellcheck disable=SC2086
  if ! cmake --build "$dir" -j "$jobs" ${targets:+--target $targets} >"$dir.build.log" 2>&1; then
    tail -50 "$dir.build.log"; failed=$((failed + 1)); failures+=("$name (build)"); continue
  fi
  log="$dir.ctest.log"
  if ctest --test-dir "$dir" -j "$jobs" --output-on-failure ${label:+-L $label} >"$log" 2>&1; then ok=1; else ok=0; fi
  tail -3 "$log"
  p=$(grep -oE '[0-9]+ tests failed out of [0-9]+' "$log" | tail -1 || true)
  total=$(sed -E 's/.* out of ([0-9]+)/\1/' <<<"${p:-0 tests failed out of 0}")
  bad=$(sed -E 's/^([0-9]+) tests.*/\1/' <<<"${p:-0 tests failed out of 0}")
  passed=$((passed + total - bad)); failed=$((failed + bad))
  if ((ok == 0)); then
    grep -E '^\s*[0-9]+ - |Failed|\*\*\*' "$log" | head -40 || true # (head may end grep early: no SIGPIPE exit under pipefail)
    if ((bad == 0)); then failed=$((failed + 1)); fi
    failures+=("$name")
  fi
  summary+=("$(printf '%-20s %4d tests  %4ds  %s' "$name" "$total" $((SECONDS - start)) "$([[ $ok == 1 ]] && echo ok || echo FAILED)")")
done

# Extra stages that are not ctest suites of the host build.
for stage in "$root"/scripts/test-stages/*.sh; do
  [[ -e "$stage" ]] || continue
  name=$(basename "$stage" .sh)
  if ((${#wanted[@]})) && [[ ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  echo "=== $name"
  start=$SECONDS
  if bash "$stage" "$out/$name"; then
    passed=$((passed + 1)); summary+=("$(printf '%-18s %10s  %4ds  ok' "$name" "stage" $((SECONDS - start)))")
  else
    failed=$((failed + 1)); failures+=("$name")
    summary+=("$(printf '%-18s %10s  %4ds  FAILED' "$name" "stage" $((SECONDS - start)))")
  fi
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
if ((${#failures[@]})); then echo "failed: ${failures[*]}"; fi
echo "test-all: $passed passed, $failed failed"
((failed == 0))
