/* rt_zeros_like.c - ZEROS_LIKE kernel. */
#include <string.h>

#include "mpcc_rt.h"

void rt_zeros_like(const rt_zeros_like_params *p, void *out) { memset(out, 0, (size_t)p->bytes); }
