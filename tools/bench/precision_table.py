"""make bench's second table: each float model at fp32, --precision int8 (calibrated), bf16 and fp16,
timed interleaved with TFLite XNNPACK on the float model; weight and arena bytes, and each variant's error
against TFLite's float result. bench.py passes itself as `h` (its builder, timers and TFLite loader)."""

import os

import numpy as np

# Float models compiled as they are and with --precision int8 (calibrated on CALIB random samples drawn
# like the timing inputs), bf16 and fp16.
MODELS = ["digits_f32", "resnet_f32", "vit_f32", "bert_f32", "mobilenetv2_1.0_224_f32", "bert_base_f32"]
CALIB = 16
VARIANTS = ("fp32", "int8", "bf16", "fp16")
INT8_AUTO_BYTES = 64 << 20  # larger models skip int8 unless --precisions names it (BERT-base: 417 MiB)


def bench(h, label, path, args, builder, mpcc_flags, seed):
    """One float model (h: the bench module) at fp32, --precision int8 (calibrated), bf16 and fp16: times all
    of them (and TFLite XNNPACK on the float model) interleaved; weight bytes, arena bytes and each output's
    error against TFLite's float result."""
    names, note = [v for v in VARIANTS if v in (args.precisions or VARIANTS)], ""
    if not args.precisions and os.path.getsize(path) > INT8_AUTO_BYTES:
        names.remove("int8")
        note = f"int8 not timed: {os.path.getsize(path) >> 20} MiB (calibrating on the reference interpreter " \
               "takes over 10 minutes; --precisions int8 times it)"
    cal = []
    if "int8" in names:
        cal_dir = os.path.join(h.BENCH_DIR, "calib", label)
        os.makedirs(cal_dir, exist_ok=True)
        for i, stacked in enumerate(h.oracle.draw_samples(path, seed + 1, CALIB)):
            f = os.path.join(cal_dir, f"input{i}.npy")
            np.save(f, stacked)
            cal += ["--calibrate", f]
    variants = {}
    for name in names:
        flags = [] if name == "fp32" else ["--precision", name] + (cal if name == "int8" else [])
        so, header, weights = builder.model_library(f"{label}@{name}", path, mpcc_flags + flags, "file")
        variants[name] = h.MpccModel(so, header, weights)
    tf1 = h.load_tflite(path, 1)
    inputs = h.oracle.draw_inputs(path, seed, tf1)
    for d, a in zip(tf1.get_input_details(), inputs):
        tf1.set_tensor(d["index"], a)
    tf1.invoke()
    ref = tf1.get_tensor(tf1.get_output_details()[0]["index"]).astype(np.float64)
    row = {"model": label}
    for name, mp in variants.items():
        mp.set_inputs(inputs)
        mp.init()
        mp.run(1)
        out = mp.out_arrays[0].astype(np.float64)
        row[f"err_{name}"] = float(np.sqrt(((out - ref) ** 2).sum() / max((ref ** 2).sum(), 1e-30)))
        row[f"w_{name}"] = mp.weights.size if mp.weights is not None else 0
        row[f"a_{name}"] = mp.arena.size
    target = args.batch_ms / 1000.0
    batches = []
    for fn in [variants[v].batch_timer() for v in names] + [h.tflite_batch_timer(tf1)]:
        k, _ = h.calibrate(fn, target)
        batches.append((fn, k, 0))
    med, rounds = h.timed_rounds(batches, target * len(batches), args)
    for name, t in zip(names, med):
        row[f"t_{name}"] = t
    row.update(t_xnn=med[-1], rounds=rounds, variants=names, note=note)
    return row


def show(rows, say):
    """The table of bench's rows, a line per variant, through say."""
    cols = ["model", "variant", "mpcc ms", "vs fp32", "XNN fp32 ms", "XNN/mpcc", "weights B", "vs fp32", "arena B",
            "rel L2 vs TFLite fp32", "R"]
    lines = []
    for r in rows:
        if "error" in r:
            lines.append([r["model"], ""] + [""] * 8 + ["ERROR: " + r["error"]])
            continue
        for v in r["variants"]:
            lines.append([r["model"] if v == "fp32" else "", v, f"{r['t_' + v] * 1e3:.3f}",
                          f"{r['t_fp32'] / r['t_' + v]:.2f}x", f"{r['t_xnn'] * 1e3:.3f}" if v == "fp32" else "",
                          f"{r['t_xnn'] / r['t_' + v]:.3f}", str(r["w_" + v]), f"{r['w_' + v] / max(r['w_fp32'], 1):.2f}x",
                          str(r["a_" + v]), f"{r['err_' + v]:.3g}", str(r["rounds"]) if v == "fp32" else ""])
    widths = [max(len(c), *(len(ln[i]) for ln in lines)) if lines else len(c) for i, c in enumerate(cols)]
    say("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip())
    say("  ".join("-" * w for w in widths))
    for ln in lines:
        say("  ".join(v.ljust(w) for v, w in zip(ln, widths)).rstrip())
    for r in rows:
        if r.get("note"):
            say(f"{r['model']}: {r['note']}")
    say(f"(int8 = --precision int8 calibrated on {CALIB} random samples; bf16/fp16 = FULLY_CONNECTED "
        "and CONV_2D weights in 16 bits, activations f32 with --isa generic and avx2 (between 16-bit-capable "
        "kernels stored in 16 bits with --half-activations or --isa avx512: pass half_storage); 'vs fp32' = "
        "fp32 ms / variant ms and bytes / fp32 bytes)")
