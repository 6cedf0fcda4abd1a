"""Writes tests/fusion/*.tflite: small models for mpcc's fusion and scheduling passes, and
tests/fusion/cases.json describing what `mpcc MODEL --dump-ir` must show for each.

Families (each in f32 and int8, plus a few int8-only variants):
  - bmm_*   TRANSPOSE -> BATCH_MATMUL (pass fold_transpose): transposes on the left operand, the
            right one and both; adj_x / adj_y; rank 3; batch-only permutations; broadcast batch
            dims (either side); square matrices where the reading (plain or adjoint) cannot be
            told from the shapes; and cases that must NOT fold (the transposed tensor is also a
            graph output, feeds an ADD, or is both operands of the matmul).
  - fc_*    FULLY_CONNECTED -> schedule gemm: M = 1, 7, 13; K odd (33); N = 37 (not a multiple of
            the 16-wide panels); with and without bias; fused RELU / RELU6; rank-3 keep_num_dims;
            int8 per-tensor and per-channel weights.
  - conv_*  CONV_2D -> schedule conv-gemm: 1x1 stride 1 (direct), 1x1 stride 2, 3x3 SAME stride 2,
            5x5 VALID dilation 2, batch 2; in_c 3, out_c 20; int8 with per-channel weights.
  - dw_*    DEPTHWISE_CONV_2D -> schedule dwconv: depth multiplier 1 and 4 on 3 input channels,
            3x3 / 5x5, SAME / VALID, stride 1 / 2, dilation 2; int8 per-channel; a HARD_SWISH after
            (f32, pass fuse_prelu).
  - expdw_* 1x1 CONV_2D (RELU6) -> DEPTHWISE_CONV_2D (pass fuse_dw, f32 only): strides 1 / 2, SAME /
            VALID, 5x5 dilation 2, batch 2, channel counts not a multiple of 16; not when the
            expansion is also a graph output; HARD_SWISH after the expansion and / or the depthwise.
  - bin_*   ADD, SUB, MUL, SQUARED_DIFFERENCE (one model per broadcast pattern, four outputs) ->
            schedule binary: [2,3,4,5] op [5], [2,1,4,1] op [1,3,1,5], scalar op [2,3,4,5], same
            shape; int8 with different input and output scales.

int8 conventions (TFLite's): activations int8 per-tensor (scale, zero point); weights symmetric
(zero point 0), per-channel on the output channel for CONV_2D (dim 0) and DEPTHWISE_CONV_2D
(dim 3); bias int32 with scale input_scale * weight_scale and zero point 0; BATCH_MATMUL int8 has
both operands int8 per-tensor (right operand zero point 0); TRANSPOSE keeps its input's
quantization. Output scales are calibrated: the same graph is built in float with the dequantized
weights, run by the TFLite interpreter on dequantized random int8 inputs (fixed seed), and each
int8 activation's scale / zero point covers the observed range (and 0).

Everything is seeded from the case name, so the output is deterministic.

Run: .venv/bin/python tests/fusion/make_fusion.py   (rewrites every file)
"""

import json

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from fusion_net import ACT, BO, HERE, MAX_BYTES, OP, PAD, Net, S, add, batch_matmul, rng_for, transpose


# ---- the cases ---------------------------------------------------------------------------------

CASES = []  # dicts: name, family, build (Net factory), int8 (bool), f32 (bool), expect


def case(name, fn, expect, f32=True, int8=True, transposes=None):
    """expect: {tflite op index: {"op": NAME, "fused": str or None, "schedule": str, "direct": bool}}.
    fused "" means the line must not say "fused:"; transposes: TRANSPOSE ops left after the passes."""
    CASES.append(dict(name=name, fn=fn, expect=expect, f32=f32, int8=int8, transposes=transposes))


# Activation quantization of graph inputs (int8): varied, nonzero zero points.
QX = (0.02, -3)
QY = (0.025, 0)    # BATCH_MATMUL right operands: zero point 0
QZ = (0.03, 7)


def bmm_case(name, x_shape, x_perm, y_shape, y_perm, adj_x=False, adj_y=False, fused="TRANSPOSE, TRANSPOSE",
             transposes=0):
    """lhs = TRANSPOSE(X, x_perm) (or X itself when x_perm is None), rhs likewise from Y."""
    def fn(nm):
        n = Net(nm)
        x = n.input("x", x_shape, QX)
        y = n.input("y", y_shape, QY)
        lhs = transpose(n, x, x_perm, "x_t") if x_perm else x
        rhs = transpose(n, y, y_perm, "y_t") if y_perm else y
        n.output(batch_matmul(n, lhs, rhs, adj_x, adj_y))
        return n
    n_t = (1 if x_perm else 0) + (1 if y_perm else 0)
    case(name, fn, {n_t: {"op": "BATCH_MATMUL", "fused": fused, "schedule": "bmm"}}, transposes=transposes)


S_X, S_Y, H, D = 24, 20, 2, 16
# Transposes on both operands (attention-style Q.K^T), every adj combination.
bmm_case("bmm_both_plain", [1, S_X, H, D], [0, 2, 1, 3], [1, S_Y, H, D], [0, 2, 3, 1])
bmm_case("bmm_both_adjy", [1, S_X, H, D], [0, 2, 1, 3], [1, S_Y, H, D], [0, 2, 1, 3], adj_y=True)
bmm_case("bmm_both_adjx", [1, S_X, H, D], [0, 2, 3, 1], [1, S_Y, H, D], [0, 2, 3, 1], adj_x=True)
bmm_case("bmm_both_adjx_adjy", [1, S_X, H, D], [0, 2, 3, 1], [1, S_Y, H, D], [0, 2, 1, 3], adj_x=True, adj_y=True)
# One side only.
bmm_case("bmm_lhs_only", [1, S_X, H, D], [0, 2, 1, 3], [1, H, D, S_Y], None, fused="TRANSPOSE")
bmm_case("bmm_rhs_only", [1, H, S_X, D], None, [1, S_Y, H, D], [0, 2, 3, 1], fused="TRANSPOSE")
bmm_case("bmm_lhs_only_adjx", [1, S_X, H, D], [0, 2, 3, 1], [1, H, D, S_Y], None, adj_x=True, fused="TRANSPOSE")
bmm_case("bmm_rhs_only_adjy", [1, H, S_X, D], None, [1, S_Y, H, D], [0, 2, 1, 3], adj_y=True, fused="TRANSPOSE")
# Rank 3: [S, B, D] -> [B, S, D].
bmm_case("bmm_rank3", [S_X, 3, D], [1, 0, 2], [S_Y, 3, D], [1, 2, 0])
bmm_case("bmm_rank3_adjy", [S_X, 3, D], [1, 0, 2], [S_Y, 3, D], [1, 0, 2], adj_y=True)
# A permutation of batch dimensions only (the matrix strides stay dense).
bmm_case("bmm_batch_perm", [3, 2, S_X, D], [1, 0, 2, 3], [2, 3, D, S_Y], None, fused="TRANSPOSE")
# Broadcast batch: lhs rank 4 with batch 2, rhs rank 3; and lhs batch 1 against rhs batch 2.
bmm_case("bmm_bcast_rhs_rank3", [2, S_X, 3, D], [0, 2, 1, 3], [S_Y, 3, D], [1, 2, 0])
bmm_case("bmm_bcast_lhs_batch1", [1, S_X, 3, D], [0, 2, 1, 3], [2, S_Y, 3, D], [0, 2, 3, 1])
bmm_case("bmm_bcast_lhs_rank3", [S_X, 3, D], [1, 0, 2], [2, S_Y, 3, D], [0, 2, 3, 1])
# Square matrices (S == D): plain and adjoint readings have the same shapes.
SQ = 16
for nm, xp, yp, ax, ay in [("bmm_square_plain", [0, 2, 1, 3], [0, 2, 3, 1], False, False),
                           ("bmm_square_adjx", [0, 2, 3, 1], [0, 2, 3, 1], True, False),
                           ("bmm_square_adjy", [0, 2, 1, 3], [0, 2, 1, 3], False, True),
                           ("bmm_square_adjx_adjy", [0, 2, 3, 1], [0, 2, 1, 3], True, True),
                           # Same perms, other flags: the folded strides must follow adj, not the perm.
                           ("bmm_square_adjx_adjy_swapped", [0, 2, 1, 3], [0, 2, 3, 1], True, True)]:
    bmm_case(nm, [1, SQ, H, SQ], xp, [1, SQ, H, SQ], yp, adj_x=ax, adj_y=ay)


def bmm_nofold_output(nm):
    """The lhs transpose is also a graph output: it must stay (the rhs one folds)."""
    n = Net(nm)
    x = n.input("x", [1, S_X, H, D], QX)
    y = n.input("y", [1, S_Y, H, D], QY)
    q = transpose(n, x, [0, 2, 1, 3], "x_t")
    k = transpose(n, y, [0, 2, 3, 1], "y_t")
    n.output(batch_matmul(n, q, k), q)
    return n


case("bmm_nofold_graph_output", bmm_nofold_output,
     {2: {"op": "BATCH_MATMUL", "fused": "TRANSPOSE", "schedule": "bmm"}}, transposes=1)


def bmm_nofold_add(nm):
    """The lhs transpose also feeds an ADD: it must stay (the rhs one folds)."""
    n = Net(nm)
    x = n.input("x", [1, S_X, H, D], QX)
    y = n.input("y", [1, S_Y, H, D], QY)
    z = n.input("z", [1, H, S_X, D], QZ)
    q = transpose(n, x, [0, 2, 1, 3], "x_t")
    k = transpose(n, y, [0, 2, 3, 1], "y_t")
    o1 = batch_matmul(n, q, k)
    o2 = add(n, q, z, [1, H, S_X, D], "sum")
    n.output(o1, o2)
    return n


case("bmm_nofold_second_consumer", bmm_nofold_add,
     {2: {"op": "BATCH_MATMUL", "fused": "TRANSPOSE", "schedule": "bmm"},
      3: {"op": "ADD", "fused": "", "schedule": "binary"}}, transposes=1)


def bmm_nofold_self(nm):
    """One transpose is both operands (Q.Q^T): two uses, no fold."""
    n = Net(nm)
    x = n.input("x", [1, S_X, H, D], QX)
    q = transpose(n, x, [0, 2, 1, 3], "x_t")
    n.output(batch_matmul(n, q, q, adj_y=True))
    return n


# int8: both operands are the same tensor, so the rhs zero point is QX's (nonzero).
case("bmm_nofold_same_operand", bmm_nofold_self,
     {1: {"op": "BATCH_MATMUL", "fused": "", "schedule": "bmm"}}, transposes=1)


def bmm_double_transpose(nm):
    """TRANSPOSE -> TRANSPOSE -> BATCH_MATMUL: the second folds, reading the first one's output."""
    n = Net(nm)
    x = n.input("x", [1, S_X, H, D], QX)
    y = n.input("y", [1, H, S_X, S_Y], QY)
    t1 = transpose(n, x, [0, 2, 1, 3], "x_t1")    # [1, H, S_X, D]
    t2 = transpose(n, t1, [0, 1, 3, 2], "x_t2")   # [1, H, D, S_X]
    n.output(batch_matmul(n, t2, y))              # [1, H, D, S_Y]
    return n


case("bmm_double_transpose", bmm_double_transpose,
     {2: {"op": "BATCH_MATMUL", "fused_contains": "TRANSPOSE", "schedule": "bmm"}})


# ---- FULLY_CONNECTED ----

RELU6_GAIN = 10.0

def fc_case(name, m, k, nout, bias=True, act=ACT.NONE, rank3=False, per_channel=False, f32=True):
    def fn(nm):
        n = Net(nm)
        xs = [1, m, k] if rank3 else [m, k]
        x = n.input("x", xs, QX)
        w = n.weight("w", [nout, k], channel_dim=0 if per_channel else None,
                     gain=RELU6_GAIN if act == ACT.RELU6 else 1.0)
        ins = [x, w, n.bias("b", nout, x, w) if bias else -1]
        out = n.act("out", [1, m, nout] if rank3 else [m, nout])
        o = S.FullyConnectedOptionsT()
        o.fusedActivationFunction = act
        o.keepNumDims = rank3
        n.op(OP.FULLY_CONNECTED, ins, [out], BO.FullyConnectedOptions, o)
        n.output(out)
        return n
    case(name, fn, {0: {"op": "FULLY_CONNECTED", "fused": "", "schedule": "gemm"}}, f32=f32)


fc_case("fc_m1_k33_n37_bias", 1, 33, 37)
fc_case("fc_m1_k33_n37_nobias_relu", 1, 33, 37, bias=False, act=ACT.RELU)
fc_case("fc_m7_k33_n37_bias_relu6", 7, 33, 37, act=ACT.RELU6)
fc_case("fc_m7_k33_n37_nobias", 7, 33, 37, bias=False)
fc_case("fc_m13_k33_n37_bias_relu", 13, 33, 37, act=ACT.RELU)
fc_case("fc_m7_k32_n48_bias", 7, 32, 48)
fc_case("fc_rank3_m7_k33_n37_keepdims", 7, 33, 37, rank3=True)
fc_case("fc_m7_k33_n37_perchannel", 7, 33, 37, per_channel=True, f32=False)


# ---- CONV_2D / DEPTHWISE_CONV_2D ----

def conv_out(size, k, stride, dil, pad):
    ek = (k - 1) * dil + 1
    return (size + stride - 1) // stride if pad == PAD.SAME else (size - ek) // stride + 1


def conv_case(name, in_shape, k, stride, pad, dil=1, act=ACT.NONE, out_c=20, direct=False):
    def fn(nm):
        n = Net(nm)
        b_, h, w_, c = in_shape
        x = n.input("x", in_shape, QX)
        w = n.weight("w", [out_c, k, k, c], channel_dim=0, gain=RELU6_GAIN if act == ACT.RELU6 else 1.0)
        b = n.bias("b", out_c, x, w)
        oh, ow = conv_out(h, k, stride, dil, pad), conv_out(w_, k, stride, dil, pad)
        out = n.act("out", [b_, oh, ow, out_c])
        o = S.Conv2DOptionsT()
        o.padding, o.strideH, o.strideW = pad, stride, stride
        o.dilationHFactor = o.dilationWFactor = dil
        o.fusedActivationFunction = act
        n.op(OP.CONV_2D, [x, w, b], [out], BO.Conv2DOptions, o)
        n.output(out)
        return n
    case(name, fn, {0: {"op": "CONV_2D", "fused": "", "schedule": "conv-gemm", "direct": direct}})


conv_case("conv_1x1_s1_direct", [1, 9, 7, 3], 1, 1, PAD.VALID, direct=True)
conv_case("conv_1x1_s2_valid", [1, 9, 7, 3], 1, 2, PAD.VALID)
conv_case("conv_3x3_same_s2_relu", [1, 11, 9, 3], 3, 2, PAD.SAME, act=ACT.RELU)
conv_case("conv_5x5_valid_dil2_relu6", [1, 14, 13, 3], 5, 1, PAD.VALID, dil=2, act=ACT.RELU6)
conv_case("conv_3x3_same_s1_batch2", [2, 8, 7, 3], 3, 1, PAD.SAME)


def dw_case(name, in_shape, k, stride, pad, mult, dil=1, act=ACT.NONE, hswish=False):
    """hswish: a HARD_SWISH reads the output (f32 only): pass fuse_prelu fuses it (`fused: HARD_SWISH`)."""
    def fn(nm):
        n = Net(nm)
        b_, h, w_, c = in_shape
        x = n.input("x", in_shape, QX)
        w = n.weight("w", [1, k, k, c * mult], std=1.0 / k, channel_dim=3,
                     gain=RELU6_GAIN if act == ACT.RELU6 else 1.0)
        b = n.bias("b", c * mult, x, w)
        oh, ow = conv_out(h, k, stride, dil, pad), conv_out(w_, k, stride, dil, pad)
        out = n.act("out", [b_, oh, ow, c * mult])
        o = S.DepthwiseConv2DOptionsT()
        o.padding, o.strideH, o.strideW = pad, stride, stride
        o.dilationHFactor = o.dilationWFactor = dil
        o.depthMultiplier = mult
        o.fusedActivationFunction = act
        n.op(OP.DEPTHWISE_CONV_2D, [x, w, b], [out], BO.DepthwiseConv2DOptions, o)
        if hswish:
            dw_o, out = out, n.act("out_hswish", [b_, oh, ow, c * mult])
            n.op(OP.HARD_SWISH, [dw_o], [out])
        n.output(out)
        return n
    case(name, fn, {0: {"op": "DEPTHWISE_CONV_2D", "fused": "HARD_SWISH" if hswish else "", "schedule": "dwconv"}},
         int8=not hswish)


dw_case("dw_3x3_same_s1_m1", [1, 10, 9, 3], 3, 1, PAD.SAME, 1)
dw_case("dw_3x3_same_s2_m4_relu", [1, 10, 9, 3], 3, 2, PAD.SAME, 4, act=ACT.RELU)
dw_case("dw_5x5_valid_s1_m4", [1, 11, 10, 3], 5, 1, PAD.VALID, 4)
dw_case("dw_5x5_valid_s2_m1_relu6", [1, 11, 10, 3], 5, 2, PAD.VALID, 1, act=ACT.RELU6)
dw_case("dw_3x3_same_dil2_m4", [1, 9, 9, 3], 3, 1, PAD.SAME, 4, dil=2)
dw_case("dw_3x3_same_s1_m1_hswish", [1, 10, 9, 20], 3, 1, PAD.SAME, 1, hswish=True)
dw_case("dw_5x5_valid_s2_m4_hswish", [1, 11, 10, 3], 5, 2, PAD.VALID, 4, hswish=True)



# ---- 1x1 CONV_2D -> DEPTHWISE_CONV_2D (pass fuse_dw, f32 only) ----

def expdw_case(name, in_shape, mid_c, k, stride, pad, dil=1, conv_out_is_output=False, hswish=""):
    """MobileNetV2's expansion: a 1x1 conv (RELU6) whose only reader is a depthwise conv (RELU6), f32
    only (the pass fuses f32; int8 blocks are covered by the models' suites): the conv line says
    `fused: DEPTHWISE_CONV_2D` unless its output is also a graph output. hswish "in" / "out" / "both":
    a HARD_SWISH after the conv (MediaPipe pose's blocks; the conv's activation then NONE) and / or
    after the depthwise, fused too (`fused: HARD_SWISH, DEPTHWISE_CONV_2D, HARD_SWISH`)."""
    h_in, h_out = hswish in ("in", "both"), hswish in ("out", "both")
    def fn(nm):
        n = Net(nm)
        b_, h, w_, c = in_shape
        x = n.input("x", in_shape, QX)
        w = n.weight("w", [mid_c, 1, 1, c], channel_dim=0, gain=RELU6_GAIN)
        b = n.bias("b", mid_c, x, w)
        mid = n.act("mid", [b_, h, w_, mid_c])
        o = S.Conv2DOptionsT()
        o.padding, o.strideH, o.strideW = PAD.VALID, 1, 1
        o.dilationHFactor = o.dilationWFactor = 1
        o.fusedActivationFunction = ACT.NONE if h_in else ACT.RELU6
        n.op(OP.CONV_2D, [x, w, b], [mid], BO.Conv2DOptions, o)
        if h_in:
            conv_o, mid = mid, n.act("mid_hswish", [b_, h, w_, mid_c])
            n.op(OP.HARD_SWISH, [conv_o], [mid])
        wd = n.weight("wd", [1, k, k, mid_c], std=1.0 / k, channel_dim=3, gain=RELU6_GAIN)
        bd = n.bias("bd", mid_c, mid, wd)
        oh, ow = conv_out(h, k, stride, dil, pad), conv_out(w_, k, stride, dil, pad)
        out = n.act("out", [b_, oh, ow, mid_c])
        o = S.DepthwiseConv2DOptionsT()
        o.padding, o.strideH, o.strideW = pad, stride, stride
        o.dilationHFactor = o.dilationWFactor = dil
        o.depthMultiplier = 1
        o.fusedActivationFunction = ACT.NONE if h_out else ACT.RELU6
        n.op(OP.DEPTHWISE_CONV_2D, [mid, wd, bd], [out], BO.DepthwiseConv2DOptions, o)
        if h_out:
            dw_o, out = out, n.act("out_hswish", [b_, oh, ow, mid_c])
            n.op(OP.HARD_SWISH, [dw_o], [out])
        if conv_out_is_output:
            n.output(out, mid)
        else:
            n.output(out)
        return n
    conv = {"op": "CONV_2D", "schedule": "conv-gemm", "direct": True}
    fused = "" if conv_out_is_output else ", ".join(["HARD_SWISH"] * h_in + ["DEPTHWISE_CONV_2D"] + ["HARD_SWISH"] * h_out)
    if h_in and (conv_out_is_output or in_shape[0] * in_shape[1] * in_shape[2] * mid_c * 4 < 512 * 1024):
        fused = "HARD_SWISH"  # pass fuse_prelu still takes the conv's HARD_SWISH (fuse_dw: expansions >= 512 KiB)
    case(name, fn, {0: dict(conv, fused=fused)}, int8=False)


expdw_case("expdw_3x3_same_s1", [1, 12, 11, 8], 40, 3, 1, PAD.SAME)
expdw_case("expdw_3x3_same_s2", [1, 13, 12, 8], 48, 3, 2, PAD.SAME)
expdw_case("expdw_3x3_valid_s2_batch2", [2, 11, 10, 5], 32, 3, 2, PAD.VALID)
expdw_case("expdw_5x5_same_dil2", [1, 14, 13, 6], 24, 5, 1, PAD.SAME, dil=2)
expdw_case("expdw_nofuse_output", [1, 9, 8, 8], 32, 3, 1, PAD.SAME, conv_out_is_output=True)
# few rows, many channels: on threads the tasks split the channels (16-channel panels, the last partial)
expdw_case("expdw_3x3_wide_s1", [1, 7, 7, 64], 104, 3, 1, PAD.SAME)
expdw_case("expdw_3x3_wide_s2_batch2", [2, 9, 8, 48], 80, 3, 2, PAD.SAME)
# MediaPipe pose's blocks: HARD_SWISH after the expansion and after the depthwise (pass fuse_dw takes both when
# the expansion has 512 KiB or more, here 66x62x40 floats; the small one below stays conv+HARD_SWISH, depthwise+HARD_SWISH)
expdw_case("expdw_hswish_both_5x5_s2", [1, 66, 62, 8], 40, 5, 2, PAD.SAME, hswish="both")
expdw_case("expdw_hswish_in_3x3_dil2", [1, 12, 11, 6], 24, 3, 1, PAD.SAME, dil=2, hswish="in")
expdw_case("expdw_hswish_out_wide_s1", [1, 7, 7, 64], 104, 3, 1, PAD.SAME, hswish="out")
expdw_case("expdw_hswish_nofuse_output", [1, 9, 8, 8], 32, 3, 1, PAD.SAME, conv_out_is_output=True, hswish="both")

# ---- PAD -> CONV_2D / DEPTHWISE_CONV_2D (pass fold_pad) ----

def pad_case(name, in_shape, pads, k, stride, pad=PAD.VALID, depthwise=False, pad_out=False):
    """x -> PAD(pads) -> conv; pad_out: the padded tensor is also a graph output (must not fold)."""
    def fn(nm):
        n = Net(nm)
        b_, h, w_, c = in_shape
        x = n.input("x", in_shape, QX)
        ph, pw = h + pads[1][0] + pads[1][1], w_ + pads[2][0] + pads[2][1]
        pc = c + pads[3][0] + pads[3][1]
        xp = n.act("x_padded", [b_, ph, pw, pc], same_as=x)
        n.op(OP.PAD, [x, n.ints("pads", pads)], [xp], BO.PadOptions, S.PadOptionsT())
        oc = pc if depthwise else 12
        if depthwise:
            w = n.weight("w", [1, k, k, pc], std=1.0 / k, channel_dim=3)
        else:
            w = n.weight("w", [oc, k, k, pc], channel_dim=0)
        b = n.bias("b", oc, xp, w)
        out = n.act("out", [b_, conv_out(ph, k, stride, 1, pad), conv_out(pw, k, stride, 1, pad), oc])
        if depthwise:
            o = S.DepthwiseConv2DOptionsT()
            o.depthMultiplier = 1
            code, bo = OP.DEPTHWISE_CONV_2D, BO.DepthwiseConv2DOptions
        else:
            o = S.Conv2DOptionsT()
            code, bo = OP.CONV_2D, BO.Conv2DOptions
        o.padding, o.strideH, o.strideW = pad, stride, stride
        o.dilationHFactor = o.dilationWFactor = 1
        n.op(code, [xp, w, b], [out], bo, o)
        n.output(out)
        if pad_out:
            n.output(xp)
        return n
    folds = not pad_out and pads[0] == [0, 0] and pads[3] == [0, 0]
    exp = {1: {"op": "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", "fused": "PAD" if folds else "",
               "schedule": "dwconv" if depthwise else "conv-gemm"}}
    if not folds:
        exp[0] = {"op": "PAD"}
    case(name, fn, exp)


pad_case("pad_conv_3x3_s2", [1, 9, 8, 3], [[0, 0], [1, 1], [1, 1], [0, 0]], 3, 2)
pad_case("pad_conv_asym_same", [1, 7, 9, 4], [[0, 0], [0, 2], [1, 0], [0, 0]], 3, 1, pad=PAD.SAME)
pad_case("pad_dw_3x3_s1", [1, 8, 8, 5], [[0, 0], [1, 1], [1, 1], [0, 0]], 3, 1, depthwise=True)
pad_case("pad_dw_3x3_s2_asym", [1, 10, 9, 4], [[0, 0], [0, 1], [0, 1], [0, 0]], 3, 2, depthwise=True)
pad_case("pad_nofold_output", [1, 6, 6, 3], [[0, 0], [1, 1], [1, 1], [0, 0]], 3, 1, pad_out=True)
pad_case("pad_nofold_channels", [1, 6, 6, 3], [[0, 0], [1, 1], [1, 1], [0, 1]], 3, 1)


# ---- residual shortcut with a channel PAD (passes shortcut, fuse_add) ----

def shortcut_case(name, in_shape, out_c, conv_first=True, act=ACT.RELU):
    """BlazeFace's widening stride-2 block: ADD(CONV_2D(x, 3x3 s2), PAD(MAX_POOL_2D(x), channels to out_c)),
    the pool and PAD after the convolution in op order (as the converter writes them)."""
    def fn(nm):
        n = Net(nm)
        b_, h, w_, c = in_shape
        oh, ow = conv_out(h, 3, 2, 1, PAD.SAME), conv_out(w_, 3, 2, 1, PAD.SAME)
        x = n.input("x", in_shape, QX)
        w = n.weight("w", [out_c, 3, 3, c], channel_dim=0)
        b = n.bias("b", out_c, x, w)
        y = n.act("conv", [b_, oh, ow, out_c])
        o = S.Conv2DOptionsT()
        o.padding, o.strideH, o.strideW = PAD.SAME, 2, 2
        o.dilationHFactor = o.dilationWFactor = 1
        n.op(OP.CONV_2D, [x, w, b], [y], BO.Conv2DOptions, o)
        s = n.act("pool", [b_, h // 2, w_ // 2, c], same_as=x)
        po = S.Pool2DOptionsT()
        po.padding, po.strideH, po.strideW, po.filterHeight, po.filterWidth = PAD.VALID, 2, 2, 2, 2
        n.op(OP.MAX_POOL_2D, [x], [s], BO.Pool2DOptions, po)
        sp = n.act("widened", [b_, oh, ow, out_c], same_as=x)
        n.op(OP.PAD, [s, n.ints("pads", [[0, 0], [0, 0], [0, 0], [0, out_c - c]])], [sp], BO.PadOptions,
             S.PadOptionsT())
        out = n.act("out", [b_, oh, ow, out_c])
        ao = S.AddOptionsT()
        ao.fusedActivationFunction = act
        n.op(OP.ADD, [y, sp] if conv_first else [sp, y], [out], BO.AddOptions, ao)
        n.output(out)
        return n
    case(name, fn, {0: {"op": "CONV_2D", "fused": "ADD, PAD", "schedule": "conv-gemm"}}, int8=False)


shortcut_case("shortcut_pad_conv", [1, 10, 12, 6], 10)
shortcut_case("shortcut_pad_conv_rhs", [1, 8, 6, 5], 13, conv_first=False, act=ACT.NONE)


# ---- binary elementwise ----

BINARY = [(OP.ADD, BO.AddOptions, S.AddOptionsT, "ADD"),
          (OP.SUB, BO.SubOptions, S.SubOptionsT, "SUB"),
          (OP.MUL, BO.MulOptions, S.MulOptionsT, "MUL"),
          (OP.SQUARED_DIFFERENCE, BO.SquaredDifferenceOptions, S.SquaredDifferenceOptionsT, "SQUARED_DIFFERENCE")]


def bin_case(name, a_shape, b_shape, acts=None):
    acts = acts or {}

    def fn(nm):
        n = Net(nm)
        a = n.input("a", a_shape, QX)
        b = n.input("b", b_shape, QZ)
        ra, rb = len(a_shape), len(b_shape)
        r = max(ra, rb)
        pa = [1] * (r - ra) + list(a_shape)
        pb = [1] * (r - rb) + list(b_shape)
        shape = [max(x, y) for x, y in zip(pa, pb)]
        for code, ot, cls, opname in BINARY:
            out = n.act(opname.lower(), shape)
            o = cls()
            if hasattr(o, "fusedActivationFunction"):
                o.fusedActivationFunction = acts.get(opname, ACT.NONE)
            n.op(code, [a, b], [out], ot, o)
            n.output(out)
        return n
    case(name, fn, {i: {"op": nm, "fused": "", "schedule": "binary"} for i, (_, _, _, nm) in enumerate(BINARY)})


bin_case("bin_bcast_last", [2, 3, 4, 5], [5])
bin_case("bin_bcast_cross", [2, 1, 4, 1], [1, 3, 1, 5])
bin_case("bin_scalar_lhs", [], [2, 3, 4, 5])
bin_case("bin_same_shape_act", [2, 3, 4, 5], [2, 3, 4, 5], acts={"ADD": ACT.RELU, "MUL": ACT.RELU6})


# attention: BATCH_MATMUL -> [MUL] -> [mask] -> SOFTMAX -> BATCH_MATMUL (pass fuse_attention, f32)

def softmax(n, x, beta, name):
    out = n.act(name, n.tensors[x]["shape"])
    o = S.SoftmaxOptionsT()
    o.beta = beta
    n.op(OP.SOFTMAX, [x], [out], BO.SoftmaxOptions, o)
    return out


def mul(n, a, b, shape, name):
    out = n.act(name, shape)
    n.op(OP.MUL, [a, b], [out], BO.MulOptions, S.MulOptionsT())
    return out


def attn_case(name, lq, lk, d, dv, heads=2, mask=None, scale=0.25, beta=1.0, softmax_out=False,
              expect_fused="BATCH_MATMUL, MUL, SOFTMAX"):
    """mask: None; "and" (SELECT_V2(a && causal, s, -1e9), a a bool input [1,1,1,lk]);
    "fill" (SELECT_V2(m, -1e4, s), m a bool input [1,heads,lq,lk]); "add" (s + m, m f32 [1,1,1,lk])."""
    def fn(nm):
        n = Net(nm)
        q = n.input("q", [1, heads, lq, d])
        k = n.input("k", [1, heads, lk, d])
        v = n.input("v", [1, heads, lk, dv])
        s = batch_matmul(n, q, k, adj_y=True, name="scores")
        shape = [1, heads, lq, lk]
        if scale is not None:
            s = mul(n, s, n.const("scale", np.float32(scale)), shape, "scaled")
        if mask == "and":
            a = n.input("key_mask", [1, 1, 1, lk], dtype="bool")
            causal = n.const("causal", np.tril(np.ones((1, 1, lq, lk), dtype=bool)), dtype="bool")
            m = n.act("mask", [1, 1, lq, lk], dtype="bool")
            n.op(OP.LOGICAL_AND, [a, causal], [m], BO.LogicalAndOptions, S.LogicalAndOptionsT())
            s2 = n.act("masked", shape)
            n.op(OP.SELECT_V2, [m, s, n.const("neg", np.float32(-1e9))], [s2], BO.SelectV2Options,
                 S.SelectV2OptionsT())
            s = s2
        elif mask == "fill":
            m = n.input("mask", [1, heads, lq, lk], dtype="bool")
            s2 = n.act("masked", shape)
            n.op(OP.SELECT_V2, [m, n.const("fill", np.float32(-1e4)), s], [s2], BO.SelectV2Options,
                 S.SelectV2OptionsT())
            s = s2
        elif mask == "add":
            m = n.input("mask", [1, 1, 1, lk])
            s = add(n, s, m, shape, "masked")
        p = softmax(n, s, beta, "probs")
        n.output(batch_matmul(n, p, v, name="out"))
        if softmax_out:
            n.output(p)
        return n
    last = len(fn("probe").ops) - 1
    exp = {last: {"op": "BATCH_MATMUL", "fused": expect_fused, "schedule": "attention"}}
    if softmax_out:
        exp = {last: {"op": "BATCH_MATMUL", "fused": "", "schedule": "bmm"},
               last - 1: {"op": "SOFTMAX", "fused": "", "schedule": "softmax"}}
    case(name, fn, exp, int8=False)


attn_case("attn_plain_cross", 9, 37, 20, 12, scale=None, beta=0.5, expect_fused="BATCH_MATMUL, SOFTMAX")
attn_case("attn_and_mask", 24, 24, 16, 16, mask="and",
          expect_fused="BATCH_MATMUL, MUL, LOGICAL_AND, SELECT_V2, SOFTMAX")
attn_case("attn_fill_mask", 17, 17, 8, 8, mask="fill", expect_fused="BATCH_MATMUL, MUL, SELECT_V2, SOFTMAX")
attn_case("attn_add_mask_long", 40, 300, 16, 16, heads=1, mask="add",
          expect_fused="BATCH_MATMUL, MUL, ADD, SOFTMAX")
attn_case("attn_nofuse_probs_output", 8, 8, 8, 8, softmax_out=True)
# The same attention at sequence 128 and 512 (test_fusion checks the arena grows linearly).
attn_case("attn_seq128", 128, 128, 16, 16, heads=1, mask="add", expect_fused="BATCH_MATMUL, MUL, ADD, SOFTMAX")
attn_case("attn_seq512", 512, 512, 16, 16, heads=1, mask="add", expect_fused="BATCH_MATMUL, MUL, ADD, SOFTMAX")


# LayerNorm as the converter writes it (pass fuse_layer_norm, f32): x * inv + (beta - mean * inv)
# with inv = gamma * rsqrt(var + eps), or -mean * inv without beta; without gamma inv = rsqrt.

def ln_case(name, shape, gamma=True, beta=True, mean_out=False):
    def fn(nm):
        n = Net(nm)
        x = n.input("x", shape)
        c = shape[-1]
        r = rng_for(nm + "/ln")
        axis = n.ints("axis", [len(shape) - 1])
        stat = shape[:-1] + [1]

        def mean(t, nmn):
            out = n.act(nmn, stat)
            o = S.ReducerOptionsT()
            o.keepDims = True
            n.op(OP.MEAN, [t, axis], [out], BO.ReducerOptions, o)
            return out
        mu = mean(x, "mean")
        sq = n.act("sqd", shape)
        n.op(OP.SQUARED_DIFFERENCE, [x, mu], [sq], BO.SquaredDifferenceOptions, S.SquaredDifferenceOptionsT())
        var = mean(sq, "var")
        ve = add(n, var, n.const("eps", np.float32(1e-3)), stat, "var_eps")
        rs = n.act("rsqrt", stat)
        n.op(OP.RSQRT, [ve], [rs], 0, None)
        inv = rs
        if gamma:
            inv = mul(n, rs, n.const("gamma", (1 + 0.3 * r.standard_normal(c)).astype(np.float32)), shape, "inv")
        xs = mul(n, x, inv, shape, "x_inv")
        if beta:
            mi = mul(n, mu, inv, shape, "mean_inv")
            sh = n.act("shift", shape)
            n.op(OP.SUB, [n.const("beta", (0.5 * r.standard_normal(c)).astype(np.float32)), mi], [sh],
                 BO.SubOptions, S.SubOptionsT())
        else:
            ng = n.act("neg", stat)
            n.op(OP.NEG, [mu], [ng], 0, None)
            sh = mul(n, ng, inv, shape if gamma else stat, "shift")
        n.output(add(n, xs, sh, shape, "y"))
        if mean_out:
            n.output(mu)
        return n
    last = len(fn("probe").ops) - 1
    exp = {last: {"op": "ADD", "fused_contains": "SQUARED_DIFFERENCE", "schedule": "layer-norm"}}
    if mean_out:
        exp = {last: {"op": "ADD", "fused": "", "schedule": "binary"}}
    case(name, fn, exp, int8=False)


ln_case("ln_scale_center", [2, 5, 48])
ln_case("ln_scale_only", [7, 33], beta=False)
ln_case("ln_plain", [1, 3, 64], gamma=False, beta=False)
ln_case("ln_nofuse_mean_output", [4, 16], mean_out=True)


# ---- main ---------------------------------------------------------------------------------------

def generate():
    """{file name: bytes} of every model and of cases.json."""
    files, manifest = {}, []
    for c in CASES:
        for variant in ("f32", "int8"):
            if not c[variant]:
                continue
            name = f"{c['name']}_{variant}"
            n = c["fn"](name)
            if variant == "int8":
                n.calibrate()
            data = n.build(variant == "int8")
            assert len(data) < MAX_BYTES, (name, len(data))
            files[f"{name}.tflite"] = data
            # The interpreter must accept the model as built.
            interp = Interpreter(model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
            interp.allocate_tensors()
            manifest.append({"model": f"{name}.tflite", "expect": {str(k): v for k, v in c["expect"].items()},
                             "transposes": c["transposes"]})
    files["cases.json"] = (json.dumps(
        {"_": "generated by make_fusion.py; do not edit. expect: per TFLite operator index, what the "
              "op's line in `mpcc MODEL --dump-ir` must show", "cases": manifest}, indent=1) + "\n").encode()
    return files


def main():
    files = generate()
    for p in HERE.glob("*.tflite"):
        p.unlink()
    for name, data in files.items():
        (HERE / name).write_bytes(data)
    print(f"wrote {len(files) - 1} models and cases.json to {HERE}")


if __name__ == "__main__":
    main()
