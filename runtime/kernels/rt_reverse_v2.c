/* rt_reverse_v2.c - REVERSE_V2 kernel. */
#include "mpcc_rt.h"

void rt_reverse_v2(const rt_copy_params *p, const void *in, void *out) { rt_copy_strided(p, in, out); }
