#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort, gzip, bzip2, xz and tar on generated data, for the shim tests. Deterministic output.
set -euo pipefail
export LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
seq 1 400000 | awk '{ printf "%08d %d %s\n", ($1 * 7919) % 1000003, $1 % 1000, substr("abcdefghijklmnopqrstuvwxyz", $1 % 26 + 1, $1 % 13 + 1) }' > data
wc -l < data
sort data | sha256sum
sort -t' ' -k2,2n -k3,3r --parallel=2 -S 8M data | sha256sum
sort -u -k3,3 data | wc -l
sort -R --random-source=data data | sort -c && echo "unexpectedly sorted" || echo "shuffled"
gzip -9 -n -c data > data.gz
gzip -d -c data.gz | cmp - data && echo "gzip round trip ok"
sha256sum < data.gz
bzip2 -9 -c data | bzip2 -d -c | cmp - data && echo "bzip2 round trip ok"
xz -6 -T2 -c data | xz -d -c | cmp - data && echo "xz round trip ok"
mkdir tree && split -l 20000 data tree/part-
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - tree | sha256sum
