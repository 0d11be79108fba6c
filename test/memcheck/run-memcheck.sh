#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-memcheck.sh VALGRIND PROGRAM MODE [slabs]: run `PROGRAM MODE [slabs]` (memcheck_demo.c)
# under valgrind memcheck and check what it reports: exactly the one expected error for
# leak, uaf and uninit (so the heap's own accesses caused none), no error and no leak for
# clean. With `slabs` the demo's heap has slabs, and the report must be the same.
set -uo pipefail
valgrind=$1 program=$2 mode=$3
shift 3
out=$("$valgrind" --leak-check=full --show-leak-kinds=definite,possible \
        --errors-for-leak-kinds=definite,possible --error-exitcode=99 \
        "$program" "$mode" "$@" 2>&1)
status=$?
echo "$out"
fail() { echo "run-memcheck.sh: $mode: $*" >&2; exit 1; }
expect() { grep -Eq -- "$1" <<<"$out" || fail "expected /$1/ in valgrind's output"; }

case $mode in
clean)
  ((status == 0)) || fail "exit status $status, expected 0"
  expect 'ERROR SUMMARY: 0 errors from 0 contexts'
  expect 'in use at exit: 0 bytes in 0 blocks' ;;
leak)
  ((status == 99)) || fail "exit status $status, expected valgrind's 99"
  expect 'ERROR SUMMARY: 1 errors from 1 contexts'
  expect '[0-9]+ bytes in 1 blocks are definitely lost'
  expect 'run_leak \((.*/)?memcheck_demo.c:'
  expect 'possibly lost: 0 bytes in 0 blocks' ;;
uaf)
  ((status == 99)) || fail "exit status $status, expected valgrind's 99"
  expect 'ERROR SUMMARY: 1 errors from 1 contexts'
  expect 'Invalid read of size 1'
  expect 'run_uaf \((.*/)?memcheck_demo.c:'
  expect 'is [0-9]+ bytes inside a block of size [0-9]+ free'"'"'d' ;;
uninit)
  ((status == 99)) || fail "exit status $status, expected valgrind's 99"
  expect 'ERROR SUMMARY: 1 errors from 1 contexts'
  expect 'Conditional jump or move depends on uninitialised value'
  expect 'run_uninit \((.*/)?memcheck_demo.c:' ;;
*) fail "unknown mode" ;;
esac
echo "run-memcheck.sh: $mode: as expected"
