/* rt_opt_dwconv_s8_rows.c - the portable int8 depthwise rows (any filter, stride, dilation, depth multiplier):
 * what rt_opt_dwconv_s8 runs where no vector kernel applies. Taps outer, channels inner in chunks the compiler
 * vectorizes; the sums wrap like TFLite's int32 accumulators; TFLite's requantization. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define CHUNK 512 /* channels per pass; the accumulators stay in L1 */

void rt_opt_dw_s8_rows_portable(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                                const int32_t *bias, int8_t *out, int32_t r0, int32_t r1) {
    int32_t r, ox, c0, c, j, fy, fx, M = p->depth_mult, C = p->in_c * M;
    uint32_t acc[CHUNK];
    int32_t acc32[CHUNK];
    /* |(in + off) * w| <= 255 * 128 fits int16 when off is in [-127, 128]. */
    const int16_t off = (int16_t)p->in_offset;
    const int off16 = p->in_offset >= -127 && p->in_offset <= 128;
    for (r = r0; r < r1; r++) {
        int32_t b = r / p->out_h, oy = r % p->out_h;
        {
            int32_t y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
            rt_opt_taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
                int8_t *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C;
                rt_opt_taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                for (c0 = 0; c0 < C; c0 += CHUNK) {
                    int32_t n = C - c0 < CHUNK ? C - c0 : CHUNK;
                    for (c = 0; c < n; c++) acc[c] = bias ? (uint32_t)bias[c0 + c] : 0u;
                    for (fy = ylo; fy < yhi; fy++) {
                        int32_t y = y0 + fy * p->dil_h;
                        for (fx = xlo; fx < xhi; fx++) {
                            int32_t x = x0 + fx * p->dil_w;
                            const int8_t *ip = in + (((int64_t)b * p->in_h + y) * p->in_w + x) * p->in_c;
                            const int8_t *wp = filter + ((int64_t)fy * p->filter_w + fx) * C + c0;
                            /* (in + in_offset) * w fits int16 when the offset is a zero point (the
                             * fast path); the sum wraps like TFLite's int32 accumulators. */
                            if (M == 1 && off16) {
                                /* Fixed chunks of 8 lanes: vectorized even for 8..24 channels. */
                                for (c = 0; c + 8 <= n; c += 8)
                                    for (j = 0; j < 8; j++)
                                        acc[c + j] += (uint32_t)(((int32_t)ip[c0 + c + j] + p->in_offset) *
                                                                 (int32_t)wp[c + j]);
                                for (; c < n; c++)
                                    acc[c] += (uint32_t)(int32_t)(int16_t)((int16_t)(ip[c0 + c] + off) * (int16_t)wp[c]);
                            } else if (p->in_c == 1) {
                                const int32_t x = (int32_t)ip[0] + p->in_offset;
                                for (c = 0; c < n; c++) acc[c] += (uint32_t)(x * (int32_t)wp[c]);
                            } else {
                                for (c = 0; c < n; c++)
                                    acc[c] += (uint32_t)(((int32_t)ip[(c0 + c) / M] + p->in_offset) * (int32_t)wp[c]);
                            }
                        }
                    }
                    for (c = 0; c < n; c++) acc32[c] = (int32_t)acc[c];
                    rt_opt_requant_i8(acc32, NULL, p->mult + c0, p->shift + c0, n, RT_OPT_ROUND_DOUBLE, p->out_offset,
                                      p->act_qmin, p->act_qmax, o + c0);
                }
            }
        }
    }
}
