# SPDX-License-Identifier: MIT
"""A malloc-heavy Python workload for the shim tests; prints only deterministic results.

Run it with PYTHONMALLOC=malloc so that every object, small ones included, comes from
malloc (by default CPython serves objects up to 512 bytes from its own arenas).
    python3 python_heavy.py [n]     (n = 1000000 by default)
"""
import hashlib
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000

# A dict of n distinct strings, of varied lengths.
table = {}
for i in range(n):
    key = f"k{i:07d}-{(i * 2654435761) % 1000003}"
    table[key] = f"v{(i * 31) % 99991}-" * (1 + i % 7)
assert len(table) == n

# Sort by a computed key, then hash a sample of the order.
order = sorted(table, key=table.__getitem__)
digest = hashlib.sha256()
for key in order[:: max(1, n // 5000)]:
    digest.update(key.encode())

# JSON round trip of the whole table.
blob = json.dumps(table, sort_keys=True)
back = json.loads(blob)
assert back == table

# Many short-lived containers of mixed sizes, freed in a different order.
lists = [list(range(i % 300)) for i in range(n // 200)]
sets = [set(x) for x in lists[::3]]
del lists[::2]
total = sum(map(len, lists)) + sum(map(len, sets))

# Bytes objects grown by repeated concatenation (realloc).
data = b""
for i in range(6000):
    data += bytes([i % 251]) * (i % 17)

print(len(table), len(blob), digest.hexdigest(), total, len(data),
      hashlib.sha256(data).hexdigest()[:16])
