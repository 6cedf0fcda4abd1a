"""The one place where outputs are compared against a reference.

    python tests/compare.py REF.npy GOT.npy [--mode ref|opt] [--int-tol K]

Rules:
  - dtype and shape must match exactly;
  - integer (and bool) outputs: bit-exact, or |got - ref| <= K with --int-tol K;
  - float outputs, two checks with the same tolerance, 1e-5 in mode "ref" and 1e-4 in mode "opt":
      max|got - ref| / max|ref|    (the worst element against the tensor's largest value)
      ||got - ref||_2 / ||ref||_2  (relative L2: errors spread over many elements, e.g. all the
                                    small ones, that each stay under the first bound)
    Each denominator is at least SCALE_FLOOR (0.05; per element for the L2 norm): float32 sums of
    O(1) terms carry absolute rounding noise however small the sum ends up, and an output that
    lands near zero by cancellation (hello_world's sin(x) for x near 0: -0.0081 from terms of size
    ~1) would otherwise be judged against its own tiny value. Calibration: hello_world_float built
    with gcc -O3 -march=native (FMA contraction) against TFLite on 400k inputs in [-1, 1): max
    absolute error 1.43e-6; the bare relative rule failed 935 of them (0.23% of CI runs), a floor
    of 1e-2 still 8, 0.03 none. So the absolute allowance is never under 5e-7 (ref), 5e-6 (opt).
    A NaN or inf in one where the other has something else fails.
    A model whose small outputs sit at the end of a deep float graph may raise its floor with
    {"scale_floor": F, "why": ...} in its sidecar (tests/test_models.py passes it as scale_floor):
    the noise there scales with the activations upstream, not with the output's own size.
The message always names the worst element: flat index, multi-index, expected, got.
With $MPCC_COMPARE_LOG set, every float comparison appends "mode max_rel rel_l2 shape" to that
file (to recalibrate the tolerances over the whole suite).
"""

import argparse
import os
import sys

import numpy as np

FLOAT_TOL = {"ref": 1e-5, "opt": 1e-4}
FLOAT_L2_TOL = {"ref": 1e-5, "opt": 1e-4}
SCALE_FLOOR = 0.05


def _where(shape, flat):
    idx = np.unravel_index(flat, shape) if shape else ()
    return f"[{flat}] {tuple(int(i) for i in idx)}"


def compare_arrays(ref, got, mode="ref", int_tol=0, scale_floor=SCALE_FLOOR):
    """(ok, msg): does got match ref under the rules above? scale_floor: see the docstring."""
    ref, got = np.asarray(ref), np.asarray(got)
    if mode not in FLOAT_TOL:
        raise ValueError(f"unknown mode {mode!r}")
    if ref.dtype != got.dtype:
        return False, f"dtype mismatch: expected {ref.dtype}, got {got.dtype}"
    if ref.shape != got.shape:
        return False, f"shape mismatch: expected {list(ref.shape)}, got {list(got.shape)}"
    if ref.size == 0:
        return True, "ok: empty"
    r, g = ref.reshape(-1), got.reshape(-1)

    if ref.dtype.kind in "iub":
        diff = np.abs(r.astype(np.int64) - g.astype(np.int64))
        worst = int(np.argmax(diff))
        ok = int(diff[worst]) <= int_tol
        msg = (f"{'ok' if ok else 'FAIL'}: max |diff| {int(diff[worst])} (tol {int_tol}) at "
               f"{_where(ref.shape, worst)}: expected {r[worst]}, got {g[worst]}")
        return ok, msg

    if ref.dtype.kind != "f":
        same = r == g
        worst = int(np.argmin(same))
        return bool(same.all()), f"exact compare of {ref.dtype}: at {_where(ref.shape, worst)} expected {r[worst]}, got {g[worst]}"

    r64, g64 = r.astype(np.float64), g.astype(np.float64)
    # Non-finite values must agree exactly (NaN with NaN, +inf with +inf, ...).
    rn, gn = ~np.isfinite(r64), ~np.isfinite(g64)
    bad = (rn | gn) & ~((np.isnan(r64) & np.isnan(g64)) | (r64 == g64))
    if bad.any():
        i = int(np.argmax(bad))
        return False, (f"FAIL: non-finite mismatch ({int(bad.sum())} elements) first at "
                       f"{_where(ref.shape, i)}: expected {r[i]}, got {g[i]}")
    fin = ~(rn | gn)
    diff = np.where(fin, np.abs(g64 - r64), 0.0)
    scale = max(float(np.max(np.abs(r64[fin]))) if fin.any() else 0.0, scale_floor)
    worst = int(np.argmax(diff))
    err = float(diff[worst]) / scale
    norm = float(np.linalg.norm(np.where(fin, r64, 0.0)))
    rel_l2 = float(np.linalg.norm(diff)) / max(norm, scale_floor * float(np.sqrt(r64.size)))
    tol, l2_tol = FLOAT_TOL[mode], FLOAT_L2_TOL[mode]
    ok = err <= tol and rel_l2 <= l2_tol
    log = os.environ.get("MPCC_COMPARE_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{mode} {err:.6e} {rel_l2:.6e} {list(ref.shape)}\n")
    msg = (f"{'ok' if ok else 'FAIL'}: max|got-ref|/max|ref| = {err:.3e} (tol {tol:.0e}, mode {mode}, "
           f"max|ref| {scale:.6g}), relative L2 = {rel_l2:.3e} (tol {l2_tol:.0e}); worst at "
           f"{_where(ref.shape, worst)}: expected {r[worst].item()!r}, got {g[worst].item()!r}")
    return ok, msg


def main(argv=None):
    p = argparse.ArgumentParser(description="compare two .npy tensors under the mpcc rules")
    p.add_argument("ref")
    p.add_argument("got")
    p.add_argument("--mode", choices=sorted(FLOAT_TOL), default="ref")
    p.add_argument("--int-tol", type=int, default=0)
    args = p.parse_args(argv)
    ok, msg = compare_arrays(np.load(args.ref), np.load(args.got), args.mode, args.int_tol)
    print(msg)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
