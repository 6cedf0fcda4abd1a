"""Sparse constants (Tensor.sparsity) in layouts the converter's zoo models do not use: int32 and
uint16 index vectors, two compressed levels, a permuted traversal order, blocks in two dimensions.
Each case is y = x + DENSIFY(c) with c sparse, run by TFLite and by `mpcc run` (the densified
constant must be bit-exact); the zoo's sparse_* models cover what the converter writes."""

import numpy as np
import pytest

import oracle
from mpcc_paths import MPCC_ASAN
from mpcc_tools import mpcc_run
from schema_models import OP, S, buffer, model, operator, pack, tensor


def sparse_model(dense, order, block_map, levels):
    """y = x + DENSIFY(c): c is `dense` stored with the given traversal order, block map and
    per-level (format, dense size or (segments, indices, vector type)) metadata; values are taken
    in traversal order from dense."""
    shape = list(dense.shape)
    values = []
    rank = len(shape)
    block = {d: lv[1] for lv, d in zip(levels, order) if d >= rank}

    def leaf(coord):
        idx = [coord[d] * (block[rank + block_map.index(d)] if d in block_map else 1)
               + (coord[rank + block_map.index(d)] if d in block_map else 0) for d in range(rank)]
        values.append(dense[tuple(idx)])

    # Levels in traversal order; a dense level's child position is parent * size + i, a CSR
    # level's is the index into its indices array.
    def walk_pos(level, coord, pos):
        if level == len(order):
            return leaf(coord)
        d = order[level]
        fmt, meta = levels[level]
        if fmt == "dense":
            for i in range(meta):
                walk_pos(level + 1, {**coord, d: i}, pos * meta + i)
        else:
            seg, ind, _ = meta
            for i in range(seg[pos], seg[pos + 1]):
                walk_pos(level + 1, {**coord, d: ind[i]}, i)
    walk_pos(0, {}, 0)

    c = tensor("c", shape, buffer=1)
    c.sparsity = S.SparsityParametersT()
    c.sparsity.traversalOrder = list(order)
    c.sparsity.blockMap = list(block_map) or None
    vec = {"i32": (S.Int32VectorT, S.SparseIndexVector.Int32Vector),
           "u16": (S.Uint16VectorT, S.SparseIndexVector.Uint16Vector),
           "u8": (S.Uint8VectorT, S.SparseIndexVector.Uint8Vector)}
    dms = []
    for fmt, meta in levels:
        dm = S.DimensionMetadataT()
        if fmt == "dense":
            dm.format, dm.denseSize = S.DimensionType.DENSE, meta
        else:
            seg, ind, kind = meta
            cls, code = vec[kind]
            a, b = cls(), cls()
            a.values, b.values = list(seg), list(ind)
            dm.format = S.DimensionType.SPARSE_CSR
            dm.arraySegmentsType, dm.arraySegments = code, a
            dm.arrayIndicesType, dm.arrayIndices = code, b
        dms.append(dm)
    c.sparsity.dimMetadata = dms
    tensors = [tensor("x", shape), c, tensor("c_dense", shape), tensor("y", shape)]
    ops = [operator(0, [1], [2]), operator(1, [0, 2], [3], S.BuiltinOptions.AddOptions, S.AddOptionsT())]
    data = buffer(np.asarray(values, np.float32).tobytes())
    return pack(model(tensors, ops, [OP.DENSIFY, OP.ADD], [buffer(), data], [0], [3]))


def csr_rows(dense2d, kind):
    """(segments, indices) of a 2-D array's nonzeros, row by row."""
    seg, ind = [0], []
    for row in dense2d:
        ind += [int(j) for j in np.flatnonzero(row)]
        seg.append(len(ind))
    return seg, ind, kind


def cases():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 10)).astype(np.float32) * (rng.random((6, 10)) < 0.4)
    yield "csr_int32", a, [0, 1], [], [("dense", 6), ("csr", csr_rows(a, "i32"))]
    yield "csr_uint16_column_major", a, [1, 0], [], [("dense", 10), ("csr", csr_rows(a.T, "u16"))]
    # Both levels compressed: the rows that have nonzeros, then their columns.
    rows = [i for i in range(6) if a[i].any()]
    seg1, ind1 = [0, len(rows)], rows
    seg2, ind2 = [0], []
    for i in rows:
        ind2 += [int(j) for j in np.flatnonzero(a[i])]
        seg2.append(len(ind2))
    yield "two_csr_levels", a, [0, 1], [], [("csr", (seg1, ind1, "u8")), ("csr", (seg2, ind2, "i32"))]
    # 2x2 blocks over both dimensions of a [4, 6] array: (2 x 3 blocks) x (2 x 2 inside).
    b = rng.standard_normal((4, 6)).astype(np.float32)
    keep = rng.random((2, 3)) < 0.5
    b *= np.kron(keep, np.ones((2, 2), np.float32))
    seg, ind = [0], []
    for i in range(2):
        ind += [int(j) for j in np.flatnonzero(keep[i])]
        seg.append(len(ind))
    yield "blocks_2x2", b, [0, 1, 2, 3], [0, 1], [("dense", 2), ("csr", (seg, ind, "u16")), ("dense", 2), ("dense", 2)]


CASES = list(cases())


@pytest.mark.parametrize("name,dense,order,block_map,levels", CASES, ids=[c[0] for c in CASES])
def test_sparse_constant_densified_bit_exact(name, dense, order, block_map, levels, tmp_path, seed):
    model = tmp_path / f"{name}.tflite"
    model.write_bytes(sparse_model(dense, order, block_map, levels))
    inputs, refs = oracle.oracle(model, seed)
    np.testing.assert_array_equal(refs[0], inputs[0] + dense)  # TFLite densifies as we think it does
    proc, outs = mpcc_run(model, inputs, tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(outs[0], refs[0])


def test_sparse_dense_size_bounded():
    """A 4.7 KB model whose sparse constant claims a 1.85 GB dense form (the fuzzer's find: the importer
    allocated it before walking the sparse structure) is refused with exit status 1, naming the tensor,
    under ASan too; the fuzzer replays the file (tests/fuzz/regress/fuzz_import)."""
    import subprocess
    from mpcc_paths import MPCC, ROOT
    bad = ROOT / "tests" / "fuzz" / "regress" / "fuzz_import" / "sparse_dense_1p85gb"
    for exe in (MPCC, MPCC_ASAN):
        p = subprocess.run([str(exe), "inspect", str(bad)], capture_output=True, text=True, timeout=120)
        q = subprocess.run([str(exe), str(bad), "-o", "/dev/null"], capture_output=True, text=True, timeout=120)
        for r in (p, q):
            assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
            assert "tensor 7 'Identity1': sparse format: the dense tensor is too large" in r.stderr, r.stderr[-2000:]
