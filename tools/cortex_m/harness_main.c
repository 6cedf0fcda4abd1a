/* harness_main.c - runs a generated model once (or MCU_RUNS times) on inputs compiled into the
 * program (io.c, written by tools/cortex_m/mcu.py) and prints each output as hex, then the stack
 * high-water mark and the arena size, over semihosting. The arena is a static array (.bss). */
#include <string.h>

#include "mcu_board.h"
#include "model.h"

#ifndef MCU_RUNS
#define MCU_RUNS 1
#endif

extern const void *const mcu_inputs[];
extern void *const mcu_outputs[];
extern const uint32_t mcu_output_bytes[];

static double arena[MODEL_ARENA_BYTES / 8 + 1];

int main(void) {
    int i, rc = 0;
    char tag[8] = "out";
    memset(arena, 0xA5, sizeof arena); /* poison: nothing may be read before it is written */
    for (i = 0; i < MODEL_NUM_OUTPUTS; i++) memset(mcu_outputs[i], 0xA5, mcu_output_bytes[i]);
    model_init(arena);
    for (i = 0; i < MCU_RUNS && rc == 0; i++) rc = model_run(mcu_inputs, mcu_outputs, arena);
    if (rc != 0) {
        mcu_put_u32("error", (uint32_t)rc);
        return 1;
    }
    for (i = 0; i < MODEL_NUM_OUTPUTS; i++) {
        tag[3] = (char)('0' + i % 10);
        tag[4] = i >= 10 ? (char)('0' + i / 10) : 0;
        mcu_put_hex(tag, mcu_outputs[i], mcu_output_bytes[i]);
    }
    mcu_put_u32("stack", mcu_stack_used());
    mcu_put_u32("stack_size", mcu_stack_size());
    mcu_put_u32("arena", MODEL_ARENA_BYTES);
    return 0;
}
