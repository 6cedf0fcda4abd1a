/* rt_opt_dw16.h - the AVX-512 f32 depthwise row kernel for filters other than 3x3
 * (rt_opt_dwconv_f32_avx512.c), called by rt_opt_dwconv.c. Include after rt_opt_internal.h. */
#ifndef RT_OPT_DW16_H
#define RT_OPT_DW16_H

/* Output row oy of one image, channels c0..c1, depth multiplier 1, filters at most RT_OPT_DW16_MAX_FH rows
 * high; img holds the image's input rows from y_base on (row y at img + (y - y_base) * in_w * in_c). */
#if defined(RT_OPT_AVX512)
#define RT_OPT_DW16_F32_ANY 1
#define RT_OPT_DW16_MAX_FH 32
void rt_opt_dw16_f32_row_any(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                             const float *bias, float *orow, int32_t oy, int32_t c0, int32_t c1);
#endif

#endif
