#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A git workload for the shim tests: a repository built from scratch with fixed identities
# and dates, so every hash and every line of output is the same on every run.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.org
cd "$tmp"
git init -q -b main repo
cd repo
for commit in $(seq 1 40); do
  export GIT_AUTHOR_DATE="2020-01-01T00:$((commit % 60)):00Z" GIT_COMMITTER_DATE="2020-01-01T00:$((commit % 60)):00Z"
  for f in $(seq 0 $((commit % 9))); do
    mkdir -p "dir$((f % 3))"
    seq "$commit" $((commit * 37 + f * 11)) | awk -v c="$commit" -v f="$f" '{ print $1 * c % 977, f, NR }' > "dir$((f % 3))/file$f.txt"
  done
  git add -A
  git commit -q -m "commit $commit" -m "$(seq 1 "$commit" | tr '\n' ' ')"
done
git log -5 --format="%H %an %ad %s" --date=iso
git rev-list --count HEAD
git hash-object dir1/file1.txt
git log -p --stat | sha256sum
git diff HEAD~20 HEAD | sha256sum
git blame --line-porcelain dir0/file0.txt | sha256sum
git gc -q --aggressive
git count-objects -v | grep -E '^(count|in-pack|packs)'
git fsck --full --no-progress 2>&1 | sort | sha256sum
git archive --format=tar HEAD | sha256sum
git show --format=%B -s HEAD~3 | sed -n 1,2p
