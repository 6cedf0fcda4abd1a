"""--target cuda: the remaining single ops (codegen/cuda_emit_misc.c, runtime/cuda/mpcc_cuda_misc.cuh, and
COS / SIN / RELU_0_TO_1 as codes of the f32 unary kernel) on the CPU emulator against mpcc's reference
interpreter: integer outputs exact, float outputs within 1e-4 relative L2 (the float rule of test_cuda.py)."""

import pytest

from mpcc_paths import ROOT
from mpcc_tools import new_workdir
from schema_models import OP, S, TT, buffer, model, operator, pack, tensor
from test_cuda import _run_emu


MODELS = ["op_abs_int32_f32", "op_cos_basic_f32", "op_sin_basic_f32", "op_relu_0_to_1_basic_f32",
          "op_embedding_lookup_ids_in_f32", "op_reduce_prod_hw_f32", "op_reduce_prod_int32_last_f32",
          "op_shape_dyn_batch_f32", "op_l2_normalization_2d_int8", "op_l2_normalization_last_int8",
          "op_log_softmax_2d_int8", "op_log_softmax_3d_int8"]


@pytest.mark.parametrize("name", MODELS)
def test_emulated_cuda_misc_op(name, seed):
    errs = _run_emu(ROOT / "tests" / "models" / f"{name}.tflite", [], seed, 1e-4)
    print(f"{name}: errors per output {errs}")
    assert errs is not None, f"{name} was refused for --target cuda"
    assert all(e <= 1e-4 for e in errs), errs


def _softmax_i8_i16_model(rows, depth, in_scale, in_zp):
    """SOFTMAX int8 -> int16 (TFLM's keyword models end in one): output scale 1/65536, zero point -32768."""
    x, y = tensor("x", [rows, depth], TT.INT8), tensor("y", [rows, depth], TT.INT16)
    x.quantization, y.quantization = S.QuantizationParametersT(), S.QuantizationParametersT()
    x.quantization.scale, x.quantization.zeroPoint = [in_scale], [in_zp]
    y.quantization.scale, y.quantization.zeroPoint = [1.0 / 65536], [-32768]
    opts = S.SoftmaxOptionsT()
    opts.beta = 1.0
    op = operator(0, [0], [1], S.BuiltinOptions.SoftmaxOptions, opts)
    return pack(model([x, y], [op], [(OP.SOFTMAX, 2)], [buffer()], [0], [1]))


@pytest.mark.parametrize("rows,depth,scale,zp", [(1, 12, 0.0699627, 2), (3, 40, 0.25, -5)])
def test_emulated_cuda_softmax_int8_to_int16(rows, depth, scale, zp, seed):
    path = new_workdir(f"cuda-softmax-i8-i16-{depth}") / f"softmax_i8_i16_{depth}.tflite"
    path.write_bytes(_softmax_i8_i16_model(rows, depth, scale, zp))
    errs = _run_emu(path, [], seed, 0)
    print(f"softmax int8 -> int16 [{rows}, {depth}]: max |diff| {errs}")
    assert errs is not None, "SOFTMAX int8 -> int16 was refused for --target cuda"
    assert errs == [0.0], errs
