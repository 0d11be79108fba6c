#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: the firmware recipes of docs/firmware.md and the README, exactly as written.
#
#   - Each shell block marked "<!-- ci: run NAME -->" (docs/firmware.md, README.md) runs with
#     bash from the top of a checkout - here a scratch directory of links to this one, so
#     that its build directories land outside the source tree - and must exit 0; a block
#     that starts QEMU must print its program's PASS line, the one-heap check its message.
#   - Each code block marked "<!-- ci: excerpt FILE -->" must be FILE's own text: its
#     non-blank lines appear in FILE, in that order.
#   - The toolchain file keeps the CPU flags when the user sets CMAKE_C_FLAGS and
#     CMAKE_CXX_FLAGS: the objects are still Cortex-M4 (v7E-M) hard-float code.
#   - ports/freertos may be added before the tlsf tree: the configure succeeds.
#
#   scripts/test-stages/firmware-recipes.sh [build-dir]
#
# The kernel: FREERTOS_KERNEL_PATH (environment), else ../shared/third_party/FreeRTOS-Kernel
# beside the repository. Without a kernel the stage is skipped (exit 0) with a message.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/build/test/firmware-recipes}
mkdir -p "$out"
out=$(cd "$out" && pwd)

kernel=${FREERTOS_KERNEL_PATH:-$root/../shared/third_party/FreeRTOS-Kernel}
if [[ ! -f "$kernel/include/FreeRTOS.h" ]]; then
  echo "firmware-recipes: SKIPPED - no FreeRTOS kernel at '$kernel' (set FREERTOS_KERNEL_PATH)"
  exit 0
fi
export FREERTOS_KERNEL_PATH
FREERTOS_KERNEL_PATH=$(cd "$kernel" && pwd)
for tool in arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-nm arm-none-eabi-readelf qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "firmware-recipes: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done
status=0

# The scratch checkout: a link to every top-level entry but the build trees.
checkout=$out/checkout
rm -rf "$checkout"
mkdir -p "$checkout"
for entry in "$root"/* "$root"/.clang-format; do
  case $(basename "$entry") in build | build-*) continue ;; esac
  ln -s "$entry" "$checkout/"
done

# The fenced block after each marker "<!-- ci: KIND ARG -->" of a Markdown file (both
# may be indented, inside a list item: the fence's indentation is taken off each line),
# as records: KIND ARG, then the block's lines, then a line "@@end".
marked_blocks() {
  awk '
    /^ *<!-- ci: [a-z-]+ [^ ]+ -->$/ { kind = $3; arg = $4; want = 1; next }
    want && /^ *```/ { want = 0; inside = 1; match($0, /^ */); indent = RLENGTH
                       print kind " " arg; next }
    inside && /^ *```/ { inside = 0; print "@@end"; next }
    inside { print substr($0, 1, indent) ~ /^ *$/ ? substr($0, indent + 1) : $0 }
  ' "$1"
}

run_block() { # name, file: run the block as a script in the checkout
  local name=$1 script=$2 log=$out/$1.log
  if (cd "$checkout" && timeout 600 bash -euo pipefail "$script") </dev/null >"$log" 2>&1; then
    if grep -q 'qemu-system-arm' "$script" && ! grep -qE '^[a-z-]+: PASS$' "$log"; then
      tail -30 "$log"; echo "firmware-recipes: $name: no PASS line"; return 1
    fi
    if grep -q 'arm-none-eabi-nm' "$script" && ! grep -qx 'no newlib heap in the image' "$log"; then
      cat "$log"; echo "firmware-recipes: $name: newlib's heap is in the image"; return 1
    fi
    echo "firmware-recipes: $name: ran as written: $(tail -1 "$log")"
  else
    tail -40 "$log"; echo "firmware-recipes: $name: FAILED"; return 1
  fi
}

check_excerpt() { # name (the file), block file: its lines appear in the file, in order
  local file=$root/$1 block=$2
  [[ -f $file ]] || { echo "firmware-recipes: excerpt of a missing file $1"; return 1; }
  if ! python3 - "$file" "$block" <<'PY'; then
import sys
text = [line.rstrip() for line in open(sys.argv[1])]
position = 0
for wanted in (line.rstrip() for line in open(sys.argv[2])):
    if not wanted.strip():
        continue
    while position < len(text) and text[position] != wanted:
        position += 1
    if position == len(text):
        print("not in the file (in this order): " + wanted)
        sys.exit(1)
    position += 1
PY
    echo "firmware-recipes: the excerpt of $1 differs from the file"; return 1
  fi
  echo "firmware-recipes: excerpt of $1: the file's own text"
}

blocks=0
for doc in docs/firmware.md README.md; do
  index=0
  while IFS= read -r header; do
    read -r kind arg <<<"$header"
    block=$out/block-$(basename "$doc" .md)-$index
    index=$((index + 1))
    : >"$block"
    while IFS= read -r line && [[ $line != "@@end" ]]; do printf '%s\n' "$line" >>"$block"; done
    blocks=$((blocks + 1))
    case $kind in
      run) run_block "$(basename "$doc" .md)-$arg" "$block" || status=1 ;;
      excerpt) check_excerpt "$arg" "$block" || status=1 ;;
      *) echo "firmware-recipes: $doc: unknown marker '$kind'"; status=1 ;;
    esac
  done < <(marked_blocks "$root/$doc")
done
if ((blocks < 6)); then echo "firmware-recipes: only $blocks marked blocks found"; status=1; fi

# CMAKE_C_FLAGS and CMAKE_CXX_FLAGS of the user's do not drop the toolchain's CPU flags.
flags=$out/user-flags
if cmake -S "$root/examples/freertos" -B "$flags" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
     -DTLSF_M4_FLOAT_ABI=hard -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 >"$flags.log" 2>&1 &&
   cmake --build "$flags" --target tlsf tlsf_freertos_cpp >>"$flags.log" 2>&1; then
  attributes=$(find "$flags" \( -name libtlsf.a -o -name 'global_new.cpp.obj' \) -exec arm-none-eabi-readelf -A {} +)
  if grep -q 'Tag_CPU_arch: v7E-M' <<<"$attributes" && grep -q 'Tag_ABI_VFP_args: VFP registers' <<<"$attributes" &&
     ! grep -qv -e 'v7E-M' <<<"$(grep 'Tag_CPU_arch:' <<<"$attributes")"; then
    echo "firmware-recipes: -DCMAKE_C_FLAGS=-O1: still Cortex-M4 (v7E-M) hard-float objects"
  else
    echo "firmware-recipes: -DCMAKE_C_FLAGS=-O1 lost the CPU flags:"; grep -E 'Tag_CPU_arch|VFP_args' <<<"$attributes" | sort | uniq -c
    status=1
  fi
else
  tail -30 "$flags.log"; echo "firmware-recipes: the build with the user's flags FAILED"; status=1
fi

# ports/freertos before the tlsf tree: one copy of tlsf serves both.
order=$out/order
mkdir -p "$order/src"
cat >"$order/src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(port_first C CXX ASM)
add_library(freertos_config INTERFACE)
target_include_directories(freertos_config SYSTEM INTERFACE $root/examples/freertos)
add_subdirectory($root/ports/freertos tlsf-freertos)
add_subdirectory($root tlsf)
EOF
if cmake -S "$order/src" -B "$order/build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
     -DTLSF_M4_FLOAT_ABI=hard >"$order.log" 2>&1; then
  echo "firmware-recipes: ports/freertos before the tlsf tree: configures"
else
  tail -20 "$order.log"; echo "firmware-recipes: ports/freertos before the tlsf tree FAILED"; status=1
fi
exit $status
