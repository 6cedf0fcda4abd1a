/* rt_opt_conv_f32.c - f32 CONV_2D as GEMM (rt_opt_gemm.c's kernels) over im2col row blocks or row tables read
 * in place, with the fused residual ADD / PRELU / HARD_SWISH epilogues, and the convolution driver
 * (rt_opt_run_conv: blocks of output rows split between tasks) shared with the int8 (rt_opt_gemm_s8.c) and 16-bit
 * (rt_opt_gemm_half.c) kernels. Split from rt_opt_gemm.c. See rt_opt.h for layouts. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

/* Row block for `tasks` tasks sharing the blocks of `rows`-row images: the block count made a
 * multiple of the tasks (else one task gets a whole block more: a 3136-row 1x1 conv in blocks of
 * 2728 ran 2728 rows on one thread and 408 on the other), in whole 16-row groups where AMX takes
 * groups of 16 rows, else as even as the rows divide (rounded up to 16 rows, MobileNetV2's 196-row
 * layers ran 112 rows on one thread and 84 on the other, 1.7x at 2 threads). Blocks only shrink, so
 * they still fit the scratch sized for `block`. */
int32_t rt_opt_balanced_block(int32_t rows, int32_t images, int32_t block, int32_t tasks) {
#if defined(RT_OPT_AMX)
    const int32_t grain = 16;
#else
    const int32_t grain = 1;
#endif
    int32_t per, even;
    block = block > 0 ? block : 1;
    if (tasks <= 1 || rows <= 0) return block;
    per = (rows + block - 1) / block;
    while ((int64_t)images * per % tasks) per++;
    even = ((rows + per - 1) / per + grain - 1) / grain * grain;
    return even < block ? even : block;
}


/* ---- convolution as GEMM ---------------------------------------------- */

int64_t rt_opt_conv_f32_slot_bytes(int32_t rows, int32_t k, int32_t filter_h, int32_t filter_w, int32_t in_c) {
    /* im2col rows; with AVX-512 the row table (8-byte pointers per filter row) and a zero filter row */
    return (int64_t)rows * k * 4 + (int64_t)rows * filter_h * 8 + (int64_t)filter_w * in_c * 4 + 64;
}

/* rt_opt_post_add_f32 over `rows` rows of oc outputs whose other operand has post->other_c < oc channels a
 * row: the rest add 0 (as TFLite adds the PAD's zeros: -0 + 0 = +0). */
static void post_add_narrow_f32(const rt_opt_post_add *post, float *out, const float *other, int64_t rows, int32_t oc) {
    const float lo = post->add->act_min, hi = post->add->act_max;
    const int32_t nc = post->other_c;
    int64_t r;
    int32_t c;
    for (r = 0; r < rows; r++, out += oc, other += nc) {
        for (c = 0; c < nc; c++) {
            float v = out[c] + other[c];
            v = v < lo ? lo : v;
            out[c] = v > hi ? hi : v;
        }
        for (; c < oc; c++) {
            float v = out[c] + 0.0f;
            v = v < lo ? lo : v;
            out[c] = v > hi ? hi : v;
        }
    }
}

#if defined(RT_OPT_INDIRECT) || defined(RT_OPT_F32_ROWS_AVX2) || defined(RT_A64)
/* The row table of patch rows m0..m0+rows for rt_opt_gemm_f32_rows_512 (AVX2: rt_opt_gemm_f32_rows_avx2): row r's filter
 * row fy (fw * in_c values, contiguous in the image when the filter row lies
 * inside it) at tab[r * filter_h + fy]; rows above or below the image point
 * at `zero`, rows cut by the left or right edge are copied with zeros into
 * copy + r * K (the im2col layout, for those rows only). */
void rt_opt_conv_rows_f32(const rt_opt_conv_params *p, const float *in, int32_t m0, int32_t rows, float *copy,
                          const float **tab, float *zero) {
    const int32_t inc = p->in_c, inw = p->in_w, fh = p->filter_h, fw = p->filter_w, seg = fw * inc;
    int32_t r, fy, fx, oy = m0 / p->out_w, ox = m0 % p->out_w;
    memset(zero, 0, sizeof(float) * (size_t)seg);
    const int64_t rstep = (int64_t)p->dil_h * inw * inc;
    for (r = 0; r < rows; r++) {
        int32_t x0 = ox * p->stride_w - p->pad_w, inside = x0 >= 0 && x0 + fw <= inw, y0 = oy * p->stride_h - p->pad_h;
        if (inside && y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h) {
            /* the whole patch inside (most rows): the run of such patches along this output row at once,
             * each stride_w pixels after the last */
            int32_t q, n = (inw - fw + p->pad_w) / p->stride_w - ox + 1;
            const float *base = in + ((int64_t)y0 * inw + x0) * inc, **t = tab + (int64_t)r * fh;
            const int64_t sx = (int64_t)p->stride_w * inc;
            n = n < p->out_w - ox ? n : p->out_w - ox;
            n = n < rows - r ? n : rows - r;
            if (fh == 3)
                for (q = 0; q < n; q++, base += sx, t += 3) t[0] = base, t[1] = base + rstep, t[2] = base + 2 * rstep;
            else
                for (q = 0; q < n; q++, base += sx, t += fh)
                    for (fy = 0; fy < fh; fy++) t[fy] = base + fy * rstep;
            r += n - 1;
            ox += n;
            if (ox == p->out_w) ox = 0, oy++;
            continue;
        }
        for (fy = 0; fy < fh; fy++) {
            int32_t y = oy * p->stride_h - p->pad_h + fy * p->dil_h;
            const float **t = tab + (int64_t)r * fh + fy;
            if (y < 0 || y >= p->in_h) *t = zero;
            else if (inside) *t = in + ((int64_t)y * inw + x0) * inc;
            else {
                float *d = copy + (int64_t)r * p->gemm.k + (int64_t)fy * seg;
                for (fx = 0; fx < fw; fx++) {
                    /* inline 16-lane copies, not a libc call per tap of a few channels */
                    int32_t x = x0 + fx, c;
                    const float *s = x < 0 || x >= inw ? NULL : in + ((int64_t)y * inw + x) * inc;
                    float *dd = d + fx * inc;
#if defined(RT_OPT_INDIRECT)
                    for (c = 0; c < inc; c += 16) {
                        const __mmask16 m = (__mmask16)(inc - c >= 16 ? 0xFFFF : (1u << (inc - c)) - 1u);
                        _mm512_mask_storeu_ps(dd + c, m, s ? _mm512_maskz_loadu_ps(m, s + c) : _mm512_setzero_ps());
                    }
#else
                    if (s) rt_opt_copy_run_f32(dd, s, inc);
                    else
                        for (c = 0; c < inc; c++) dd[c] = 0.0f;
#endif
                }
                *t = d;
            }
        }
        if (++ox == p->out_w) ox = 0, oy++;
    }
}
#endif

/* Task t of a convolution: its contiguous share of the blocks of `block` output
 * rows (over all images), with scratch copy t. */
static void conv_f32_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    int32_t mimg = p->out_h * p->out_w, kdim = p->gemm.k, ldd = kdim, oc = p->gemm.n, q;
    rt_opt_gemm_params g = p->gemm;
    /* direct 1x1 convolutions have no scratch (NULL: no pointer arithmetic on it) */
    float *dst = j->scratch ? (float *)(void *)((char *)j->scratch + (int64_t)t * p->gemm.slot_bytes) : NULL;
    int32_t q_end;
    rt_opt_task_share(p->batches * j->per_image, t, j->tasks, &q, &q_end);
    for (; q < q_end; q++) {
        int32_t b = q / j->per_image, m0 = q % j->per_image * j->block;
        int32_t rows = mimg - m0 < j->block ? mimg - m0 : j->block;
        const float *in = (const float *)j->in + (int64_t)b * p->in_h * p->in_w * p->in_c;
        float *out = (float *)j->out + (int64_t)b * mimg * oc;
        g.m = rows;
        if (p->direct) {
            g.lda = p->in_c;
            rt_opt_gemm_f32(&g, in + (int64_t)m0 * p->in_c, (const float *)j->b, (const float *)j->bias,
                            out + (int64_t)m0 * oc);
        } else {
#if defined(RT_OPT_INDIRECT) || defined(RT_OPT_F32_ROWS_AVX2) || defined(RT_A64)
            if (p->dil_w == 1) {
                const float **tab = (const float **)(void *)(((uintptr_t)(dst + (int64_t)j->block * kdim) + 7) & ~(uintptr_t)7);
                rt_opt_conv_rows_f32(p, in, m0, rows, dst, tab,
                                     (float *)(void *)(tab + (int64_t)j->block * p->filter_h));
#if defined(RT_OPT_INDIRECT)
                rt_opt_gemm_f32_rows_512(&g, rows, NULL, tab, p->filter_h, (const float *)j->b, (const float *)j->bias,
                             out + (int64_t)m0 * oc);
#elif defined(RT_A64)
                rt_opt_gemm_f32_rows_a64(&g, rows, NULL, tab, p->filter_h, (const float *)j->b, (const float *)j->bias,
                                         out + (int64_t)m0 * oc);
#else
                rt_opt_gemm_f32_rows_avx2(&g, rows, NULL, tab, p->filter_h, (const float *)j->b,
                                          (const float *)j->bias, out + (int64_t)m0 * oc);
#endif
            } else
#endif
            {
                IM2COL(float, float, 0.0f, RUN_F32);
                g.lda = kdim;
                rt_opt_gemm_f32(&g, dst, (const float *)j->b, (const float *)j->bias, out + (int64_t)m0 * oc);
            }
        }
        if (j->post && j->post->add && j->post->other_c)
            post_add_narrow_f32(j->post, out + (int64_t)m0 * oc,
                                (const float *)j->other + ((int64_t)b * mimg + m0) * j->post->other_c, rows, oc);
        else if (j->post && j->post->add)
            rt_opt_post_add_f32(j->post, out + (int64_t)m0 * oc, (const float *)j->other + ((int64_t)b * mimg + m0) * oc,
                         (int64_t)rows * oc);
        if (j->post && j->post->alpha) /* a fused PRELU (pass fuse_prelu) */
            rt_opt_prelu_rows_f32(out + (int64_t)m0 * oc, j->post->alpha, rows, oc);
        else if (j->post && j->post->hard_swish) /* a fused HARD_SWISH (pass fuse_prelu) */
            rt_opt_hard_swish_rows_f32(out + (int64_t)m0 * oc, (int64_t)rows * oc);
    }
}

void rt_opt_run_conv(const rt_opt_conv_params *p, const void *in, const void *packed_b, const void *bias,
                     void *out, void *scratch, const rt_opt_post_add *post, const void *other,
                     void (*task)(void *, int), int32_t block, int32_t half_type, const mpcc_parallel *par) {
    rt_opt_conv_job j = {p, in, packed_b, bias, other, out, scratch, post, 1, 1, 1, half_type};
    int32_t mimg = p->out_h * p->out_w, total;
    j.tasks = rt_opt_tasks(par, p->gemm.slots);
    j.block = rt_opt_balanced_block(mimg, p->batches, block, j.tasks);
    j.per_image = (mimg + j.block - 1) / j.block;
    total = p->batches * j.per_image;
    j.tasks = j.tasks < total ? j.tasks : (total > 0 ? total : 1);
    if (j.tasks > 1) par->run(par->pool, task, &j, j.tasks);
    else task(&j, 0);
}

void rt_opt_conv_f32(const rt_opt_conv_params *p, const float *in_all, const float *packed_b, const float *bias,
                     float *out_all, void *scratch, const rt_opt_post_add *post, const float *other,
                     const mpcc_parallel *par) {
    int32_t mimg = p->out_h * p->out_w;
    if (p->direct && !post && (int64_t)p->batches * mimg < p->gemm.n) {
        /* a 1x1 convolution with fewer pixels than output channels (the last layers of a CNN) is an FC whose
         * weights outweigh its input: rt_opt_fc_f32 splits it between threads by columns */
        rt_opt_gemm_params g = p->gemm;
        g.m = p->batches * mimg;
        g.lda = p->in_c;
        rt_opt_fc_f32(&g, in_all, packed_b, bias, out_all, par);
        return;
    }
    rt_opt_run_conv(p, in_all, packed_b, bias, out_all, scratch, post, other, conv_f32_task,
                    p->direct ? (post ? 60 : mimg) : p->rows, RT_F32, par);
}
