// peer_main.cc - the peer of tools/cortex_m/harness_main.c for `make bench-mcu`: TensorFlow Lite
// Micro (with the CMSIS-NN kernels) runs one model, whose .tflite is compiled into the program,
// on the same inputs MCU_RUNS times, then prints each output as hex, the stack high-water mark
// and the arena TFLM reports in use, over semihosting (samples/cortex-m/startup.c). Built by
// tools/cortex_m/peer_tflm.py against TFLM and CMSIS-NN sources fetched outside the repository.
#include <stdarg.h>
#include <string.h>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern "C" {
#include "mcu_board.h"
extern const unsigned char peer_model[];
extern const void *const mcu_inputs[];
}

#ifndef MCU_RUNS
#define MCU_RUNS 1
#endif
#ifndef PEER_ARENA
#define PEER_ARENA (256 * 1024)
#endif
// PEER_OPS: the model's operators, e.g. X(Conv2D) X(DepthwiseConv2D) (the build passes them).

alignas(16) static uint8_t arena[PEER_ARENA];

// TFLM's logging is compiled out (TF_LITE_STRIP_ERROR_STRINGS); these keep the linker content.
void DebugLog(const char *format, va_list args) {
    (void)format;
    (void)args;
}
int DebugVsnprintf(char *buffer, size_t buf_size, const char *format, va_list args) {
    (void)format;
    (void)args;
    if (buf_size) buffer[0] = 0;
    return 0;
}

int main(void) {
    static tflite::MicroMutableOpResolver<16> resolver;
#define X(op) resolver.Add##op();
    PEER_OPS
#undef X
    static tflite::MicroInterpreter interp(tflite::GetModel(peer_model), resolver, arena, PEER_ARENA);
    if (interp.AllocateTensors() != kTfLiteOk) {
        mcu_puts("error AllocateTensors\n");
        return 1;
    }
    for (size_t i = 0; i < interp.inputs_size(); i++) memcpy(interp.input(i)->data.raw, mcu_inputs[i], interp.input(i)->bytes);
    for (int r = 0; r < MCU_RUNS; r++)
        if (interp.Invoke() != kTfLiteOk) {
            mcu_puts("error Invoke\n");
            return 1;
        }
    char tag[8] = "out";
    for (size_t i = 0; i < interp.outputs_size(); i++) {
        tag[3] = (char)('0' + i % 10);
        mcu_put_hex(tag, interp.output(i)->data.raw, interp.output(i)->bytes);
    }
    mcu_put_u32("stack", mcu_stack_used());
    mcu_put_u32("stack_size", mcu_stack_size());
    mcu_put_u32("arena", (uint32_t)interp.arena_used_bytes());
    return 0;
}
