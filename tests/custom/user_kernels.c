/* user_kernels.c - user kernels for the custom operators of the test models
 * (runtime/mpcc_custom.h): what a user of --custom-op writes. */
#include <math.h>
#include <string.h>

#include "mpcc_custom.h"

/* "Sinh" (tf.math.sinh, a CUSTOM op in TFLite): float32 in, same shape out.
 * Written as (exp(x) - exp(-x)) * 0.5 to equal the oracle's builtin-op twin. */
int user_sinh(const mpcc_custom_ctx *ctx, const void *const *inputs, void *const *outputs) {
    const float *x = (const float *)inputs[0];
    float *y = (float *)outputs[0];
    int64_t i;
    if (strcmp(ctx->op_name, "Sinh") != 0 || ctx->num_inputs != 1 || ctx->num_outputs != 1) return 1;
    if (ctx->inputs[0].dtype != MPCC_F32 || ctx->outputs[0].dtype != MPCC_F32) return 2;
    if (ctx->inputs[0].size != ctx->outputs[0].size) return 3;
    for (i = 0; i < ctx->outputs[0].size; i++) y[i] = (expf(x[i]) - expf(-x[i])) * 0.5f;
    return 0;
}
