/* precision_cost.h - what --precision bf16|fp16 buys on a target (compiler/precision_cost.c). */
#ifndef MPCC_PRECISION_COST_H
#define MPCC_PRECISION_COST_H

#include "ir.h"

/* 1: the target (--isa) multiplies 16-bit floats faster than f32; 0: it has no 16-bit arithmetic (16-bit
 * weights are storage only, and 16-bit activations would cost a conversion at every op); -1: not known
 * from --isa alone (generic: the C compiler's target picks the kernels when the code is built). */
int precision_cost_arith16(IrIsa isa);

#endif
