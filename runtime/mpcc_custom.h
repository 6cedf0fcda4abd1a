/* mpcc_custom.h - how generated code calls a user kernel for a custom operator.
 *
 * A TFLite model may contain CUSTOM operators (custom_code "Sinh", "Frob", ...)
 * whose kernels TFLite does not have. Compile it with
 *
 *     mpcc model.tflite -o model.c --custom-op Sinh=my_sinh
 *
 * and the generated code calls, for every such operator,
 *
 *     int my_sinh(const mpcc_custom_ctx *ctx, const void *const *inputs, void *const *outputs);
 *
 * which you define in your own source file and link with model.c. inputs[k]
 * and outputs[k] point to dense row-major data of the dtypes and shapes that
 * ctx->inputs[k] / ctx->outputs[k] describe (inputs[k] is NULL for an absent
 * optional input); outputs never overlap inputs. ctx and everything it points
 * to is constant data in the generated file, so a kernel may keep pointers
 * into it. Return 0 on success; any other value makes <prefix>_run stop and
 * return RT_ERR_CUSTOM_OP (5). The kernel gets no scratch memory and must not
 * keep state between calls unless it manages it itself (the generated code is
 * reentrant only if the kernel is).
 *
 * `mpcc run` calls the same function from a shared library:
 *     cc -shared -fPIC my_kernels.c -o libmykernels.so
 *     mpcc run model.tflite --custom-op Sinh=my_sinh --custom-lib ./libmykernels.so ...
 *
 * This header needs only <stdint.h>; include it from your kernel's source.
 */
#ifndef MPCC_CUSTOM_H
#define MPCC_CUSTOM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, the codes of the generated header's _DTYPE macros. */
enum {
    MPCC_F32 = 0, MPCC_F16, MPCC_BF16, MPCC_I8, MPCC_U8, MPCC_I16, MPCC_I32, MPCC_I64, MPCC_BOOL,
    MPCC_ABSENT = -1 /* an optional input the model leaves out */
};

typedef struct mpcc_tensor_desc {
    int32_t dtype;          /* MPCC_F32 ... */
    int32_t rank;
    const int32_t *dims;    /* rank dimensions (not used when rank is 0) */
    int64_t size;           /* elements: the product of dims */
    float scale;            /* per-tensor quantization: real = scale * (q - zero_point); */
    int32_t zero_point;     /* scale 0 when not quantized (or quantized per channel) */
    const char *name;       /* the model's tensor name */
} mpcc_tensor_desc;

typedef struct mpcc_custom_ctx {
    const char *op_name;            /* the operator's custom_code */
    int32_t op_index;               /* its TFLite operator index (in its subgraph) */
    const uint8_t *options;         /* the custom_options bytes (often a FlexBuffer map), or NULL */
    int32_t options_size;
    int32_t num_inputs, num_outputs;
    const mpcc_tensor_desc *inputs;  /* num_inputs descriptors */
    const mpcc_tensor_desc *outputs; /* num_outputs descriptors */
} mpcc_custom_ctx;

typedef int (*mpcc_custom_fn)(const mpcc_custom_ctx *ctx, const void *const *inputs, void *const *outputs);

#ifdef __cplusplus
}
#endif

#endif
