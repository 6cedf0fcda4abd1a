/* rt_tile.h - TILE kernel: a strided byte copy whose box splits each tiled
 * dimension into (copy, element), the copy read with stride 0 (see rt_shape_common.h). */
#ifndef MPCC_RT_TILE_H
#define MPCC_RT_TILE_H

#include "rt_shape_common.h"

/* Any dtype (a byte copy). */
void rt_tile(const rt_copy_params *p, const void *in, void *out);

#endif
