/* precision_cost.h - what --precision bf16|fp16 buys on a target (compiler/precision_cost.c). */
#ifndef MPCC_PRECISION_COST_H
#define MPCC_PRECISION_COST_H

#include "ir.h"

/* 1: the target (--isa) multiplies 16-bit floats faster than f32; 0: it has no 16-bit arithmetic (16-bit
 * weights are storage only, and 16-bit activations would cost a conversion at every op), or it is planned
 * as such (generic: the C must not run slower than fp32 on whatever CPU it is built for); -1: not known
 * from --isa alone (avx512: with or without AVX512-BF16 / AMX). */
int precision_cost_arith16(IrIsa isa);

#endif
