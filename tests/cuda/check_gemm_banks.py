#!/usr/bin/env python3
"""Shared-memory bank check of the fragment reads in runtime/cuda/mpcc_cuda_gemm.cuh:
re-implements its swizzled offsets (keep in sync with the header) and counts, for every
warp-wide fragment load of every mode / layout, the wavefronts (max distinct 4-byte words
in one bank; 8-byte accesses per half-warp). 1 everywhere = conflict-free."""
import sys

def swz_k32(r): return ((r & 3) << 1) | ((r >> 2) & 1)
def swz_n32(r): return ((((r >> 1) & 1) << 1) | ((r ^ (r >> 2)) & 1)) << 1
def swz_w64(r): return (r >> 1) & 3
def swz_n16(r): return r & 7
def ia(BK, r, c): return 4 * (r * BK + ((((c >> 2) ^ swz_k32(r)) << 2) | (c & 3)))        # bytes
def ibn(BN, k, n): return 4 * (k * BN + ((((n >> 2) ^ swz_n32(k)) << 2) | (n & 3)))
def ihk(BK, r, c): return 2 * (r * BK + ((((c >> 3) ^ swz_w64(r)) << 3) | (c & 7)))
def ihn(BN, k, n): return 2 * (k * BN + ((((n >> 3) ^ swz_n16(k)) << 3) | (n & 7)))
def i8(BK, r, c): return r * BK + ((((c >> 4) ^ swz_w64(r)) << 4) | (c & 15))

def wavefronts(addrs, width):
    groups = [range(32)] if width <= 4 else [range(16), range(16, 32)]
    worst = 0
    for grp in groups:
        banks = {}
        for l in grp:
            for w in range(max(1, width // 4)):
                word = addrs[l] // 4 + w
                banks.setdefault(word % 32, set()).add(word)
        worst = max(worst, max(len(s) for s in banks.values()))
    return worst

checks = []
def add(name, fn, width):
    checks.append((name, wavefronts([fn(l >> 2, l & 3) for l in range(32)], width)))

for BK, BN in ((32, 128), (32, 64)):
    for kk in range(0, BK, 8):     # tf32: A[g+8q][kk+t+4h], B(k=kk+t+4h, n=g)
        for q in (0, 8):
            for h in (0, 4):
                add(f"tf32 A BK={BK} kk={kk} +{q},{h}", lambda g, t: ia(BK, g + q, kk + t + h), 4)
                add(f"tf32 B_NK BK={BK} kk={kk} +{q},{h}", lambda g, t: ia(BK, 8 + g if q else g, kk + t + h), 4)
                add(f"tf32 B_KN BN={BN} kk={kk} n0={q} +{h}", lambda g, t: ibn(BN, kk + t + h, q + g), 4)
    for kk in range(0, BK, 16):    # 16-bit: A[g+8q][kk+2t+8h] (8 bytes), B pairs
        for q in (0, 8):
            for h in (0, 8):
                add(f"16b A BK={BK} kk={kk} +{q},{h}", lambda g, t: ia(BK, g + q, kk + 2 * t + h), 8)
                add(f"16b B_NK f32 BK={BK} kk={kk} +{q},{h}", lambda g, t: ia(BK, g + q, kk + 2 * t + h), 8)
                add(f"16b B_NK half BK={BK} kk={kk} +{q},{h}", lambda g, t: ihk(BK, g + q, kk + 2 * t + h), 4)
                for e in (0, 1):
                    add(f"16b B_KN f32 BN={BN} kk={kk} n0={q} +{h}+{e}", lambda g, t: ibn(BN, kk + 2 * t + h + e, q + g), 4)
                    add(f"16b B_KN half BN={BN} kk={kk} n0={q} +{h}+{e}", lambda g, t: ihn(BN, kk + 2 * t + h + e, q + g), 2)
for kk in (0, 32):                 # s8, BK = 64: words at [g+8q][kk+4t+16h]
    for q in (0, 8):
        for h in (0, 16):
            add(f"s8 A/B kk={kk} +{q},{h}", lambda g, t: i8(64, g + q, kk + 4 * t + h), 4)

bad = [(n, w) for n, w in checks if w > 1]
for n, w in bad: print(f"{w}-way: {n}")
print(f"{len(checks)} fragment loads, {len(bad)} with bank conflicts")
sys.exit(1 if bad else 0)
