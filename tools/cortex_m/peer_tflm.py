"""The peer for `make bench-mcu`: TensorFlow Lite Micro with the CMSIS-NN kernels, built from their
sources for the same boards, compiler and flags as mpcc's programs and counted the same way.

The sources are not part of the repository (nor fetched by it: CI has no network): MCU_PEER_DIR
(or --peer-dir) names a folder holding
    tflite-micro/   github.com/tensorflow/tflite-micro
    CMSIS-NN/       github.com/ARM-software/CMSIS-NN (the commit TFLM's cmsis_nn_download.sh pins)
    flatbuffers/    github.com/google/flatbuffers (the tag TFLM's third_party_downloads.inc pins,
                    with TFLM's flatbuffers.patch applied)
    gemmlowp/ ruy/  github.com/google/gemmlowp and ruy (headers; the pinned commits)
The library (TFLM's interpreter, the kernels these models use, CMSIS-NN's kernels) is built once
per board into build/mcu/peer/<board>/libpeer.a; a program per model links it with
tools/cortex_m/peer_main.cc, the .tflite as a constant array and the same inputs as mpcc's.
"""

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mcu

HERE = Path(__file__).resolve().parent

# Each model's operators (MicroMutableOpResolver::Add<op>): only these are linked in.
OPS = {
    "person_detect": ["Conv2D", "DepthwiseConv2D", "AveragePool2D", "Reshape", "Softmax"],
    "micro_speech": ["DepthwiseConv2D", "FullyConnected", "Reshape", "Softmax"],
    "mobilenetv2_0.35_int8": ["Conv2D", "DepthwiseConv2D", "Add", "Mean", "FullyConnected", "Reshape", "Softmax"],
}

MICRO = ["debug_log.cc", "micro_allocation_info.cc", "micro_allocator.cc", "micro_context.cc",
         "micro_interpreter.cc", "micro_interpreter_context.cc", "micro_interpreter_graph.cc", "micro_log.cc",
         "micro_op_resolver.cc", "micro_profiler.cc", "micro_resource_variable.cc", "micro_utils.cc",
         "memory_helpers.cc", "flatbuffer_utils.cc", "system_setup.cc", "micro_time.cc"]
KERNELS = ["kernel_util.cc", "micro_tensor_utils.cc", "reshape.cc", "reshape_common.cc", "reduce.cc",
           "reduce_common.cc", "conv_common.cc", "depthwise_conv_common.cc", "pooling_common.cc", "softmax_common.cc",
           "fully_connected_common.cc", "add_common.cc"]
CMSIS_KERNELS = ["conv.cc", "depthwise_conv.cc", "pooling.cc", "softmax.cc", "fully_connected.cc", "add.cc"]


def peer_dir(given=None):
    """The sources' folder (--peer-dir, else $MCU_PEER_DIR), or None when it is missing."""
    d = given or os.environ.get("MCU_PEER_DIR")
    if not d:
        return None
    d = Path(d)
    need = ["tflite-micro/tensorflow/lite/micro/micro_interpreter.h", "CMSIS-NN/Include/arm_nnfunctions.h",
            "flatbuffers/include/flatbuffers/flatbuffers.h", "gemmlowp/fixedpoint/fixedpoint.h",
            "ruy/ruy/profiler/instrumentation.h"]
    return d if all((d / n).exists() for n in need) else None


def sources(root):
    t = root / "tflite-micro" / "tensorflow" / "lite"
    srcs = [t / "micro" / f for f in MICRO]
    srcs += sorted((t / "micro" / "arena_allocator").glob("*.cc")) + sorted((t / "micro" / "memory_planner").glob("*.cc"))
    srcs += sorted((t / "micro" / "tflite_bridge").glob("*.cc"))
    srcs += [t / "micro" / "kernels" / f for f in KERNELS]
    srcs += [t / "micro" / "kernels" / "cmsis_nn" / f for f in CMSIS_KERNELS]
    srcs += [t / "core" / "api" / "flatbuffer_conversions.cc", t / "core" / "api" / "tensor_utils.cc",
             t / "core" / "c" / "common.cc"]
    srcs += [t / "kernels" / "internal" / f for f in ("common.cc", "portable_tensor_utils.cc", "quantization_util.cc",
                                                        "runtime_shape.cc", "tensor_ctypes.cc", "tensor_utils.cc")]
    srcs += [t / "kernels" / "kernel_util.cc"] if (t / "kernels" / "kernel_util.cc").exists() else []
    srcs += sorted(p for p in (t / "core" / "api").glob("schema_utils*.cc")) + sorted((t / "schema").glob("*.cc"))
    srcs += sorted((t.parent.parent / "tensorflow" / "compiler" / "mlir" / "lite" / "schema").glob("schema_utils.cc"))
    srcs = [s for s in srcs if s.exists() and not s.name.endswith("_test.cc")]
    nn = sorted(p for p in (root / "CMSIS-NN" / "Source").rglob("*.c")
                if not p.name.endswith(("_f16.c", "_f32.c")) and p.name != "arm_nntables_flt.c")
    return srcs + nn


def includes(root):
    return ["-I", root / "tflite-micro", "-I", root / "flatbuffers" / "include", "-I", root / "gemmlowp",
            "-I", root / "ruy", "-I", root / "CMSIS-NN", "-I", root / "CMSIS-NN" / "Include"]


DEFS = ["-DTF_LITE_STATIC_MEMORY", "-DTF_LITE_STRIP_ERROR_STRINGS", "-DCMSIS_NN", "-DKERNELS_OPTIMIZED_FOR_SPEED",
        "-DTF_LITE_DISABLE_X86_NEON", "-DARM_NN_ENABLE_F16=0", "-DARM_NN_ENABLE_F32=0"]
CXX = ["-std=c++17", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics", "-fno-unwind-tables",
       "-fno-use-cxa-atexit", "-Wno-psabi"]


def flags(board):
    """mpcc's board flags (mcu.cflags) without the C-only and warning ones."""
    return [f for f in mcu.cflags(board) if f not in ("-std=c99", "-Wall", "-Wextra", "-Werror")]


def library(board, root):
    out = mcu.BUILD / "peer" / board
    lib = out / "libpeer.a"
    srcs = sources(root)
    out.mkdir(parents=True, exist_ok=True)

    def compile_one(src):
        obj = out / (str(src.relative_to(root)).replace("/", "_") + ".o")
        if obj.exists() and obj.stat().st_mtime >= src.stat().st_mtime:
            return obj
        cc = ["arm-none-eabi-g++", *CXX] if src.suffix == ".cc" else [mcu.CC, "-std=c11"]
        proc = mcu.run_cmd([*cc, *flags(board), *DEFS, *includes(root), "-c", src, "-o", obj])
        if proc.returncode != 0:
            raise RuntimeError(f"{src} for {board}:\n{proc.stderr[-3000:]}")
        return obj

    with ThreadPoolExecutor(max_workers=max(3, os.cpu_count() or 2)) as pool:
        objs = list(pool.map(compile_one, srcs))  # each object is kept until its source changes
    if lib.exists() and lib.stat().st_mtime >= max(o.stat().st_mtime for o in objs):
        return lib
    tmp = out / "libpeer.a.tmp"
    tmp.unlink(missing_ok=True)
    proc = mcu.run_cmd(["arm-none-eabi-ar", "rcs", tmp, *objs])
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    tmp.replace(lib)
    return lib


def build(board, name, model, workdir, inputs, runs, root):
    """The peer's program for model on board; returns (proc, elf)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    data = Path(model).read_bytes()
    lines = ["#include <stdint.h>", "extern const unsigned char peer_model[];", "extern const void *const mcu_inputs[];",
             f"const unsigned char peer_model[{len(data)}] __attribute__((aligned(16))) = {{",
             "    " + mcu._c_bytes(data), "};"]
    for i, a in enumerate(inputs):
        b = a.tobytes()
        lines += [f"static const uint8_t in{i}[{max(len(b), 1)}] __attribute__((aligned(8))) = {{",
                  "    " + mcu._c_bytes(b), "};"]
    lines.append(f"const void *const mcu_inputs[{max(len(inputs), 1)}] = {{"
                 + ", ".join(f"in{i}" for i in range(len(inputs))) + "};")
    (workdir / "peer_data.c").write_text("\n".join(lines) + "\n")
    lib = library(board, root)
    ops = " ".join(f"X({o})" for o in OPS[name])
    main_obj = workdir / f"peer_main-{board}-r{runs}.o"
    proc = mcu.run_cmd(["arm-none-eabi-g++", *CXX, *flags(board), *DEFS, *includes(root), "-I", mcu.SAMPLE,
                        f"-DMCU_RUNS={runs}", f"-DPEER_OPS={ops}", "-c", HERE / "peer_main.cc", "-o", main_obj])
    if proc.returncode != 0:
        return proc, None
    elf = workdir / f"peer-{board}-r{runs}.elf"
    # startup.c and the data are C (-x c); the board scripts have no .ARM.exidx, which libgcc's
    # unwinder names although nothing here throws
    proc = mcu.run_cmd(["arm-none-eabi-g++", *flags(board), "-I", mcu.SAMPLE, "-x", "c", mcu.SAMPLE / "startup.c",
                        workdir / "peer_data.c", "-x", "none", main_obj, lib, *mcu.LINK, "-L", mcu.SAMPLE / "boards",
                        "-T", mcu.SAMPLE / "boards" / mcu.BOARDS[board][2], "-Wl,--defsym=__exidx_start=0",
                        "-Wl,--defsym=__exidx_end=0", "-lm", "-o", elf])
    return proc, elf
