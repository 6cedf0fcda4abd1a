/* rt_zeros_like.h - ZEROS_LIKE kernel: every byte of the output 0 (0 and +0.0f
 * for every dtype). */
#ifndef MPCC_RT_ZEROS_LIKE_H
#define MPCC_RT_ZEROS_LIKE_H

typedef struct rt_zeros_like_params {
    int64_t bytes;
} rt_zeros_like_params;

void rt_zeros_like(const rt_zeros_like_params *p, void *out);

#endif
