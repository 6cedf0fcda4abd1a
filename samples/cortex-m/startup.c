/* startup.c - vector table and reset handler for the Cortex-M boards that QEMU models
 * (mps2-an385/an386/an500, mps2-an505, mps3-an547), and semihosting console I/O.
 *
 * The linker scripts (boards/ *.ld, one per board) place .vectors at the address the core reads its
 * vector table from at reset, code and constants (the model's weights) in the flash-like
 * region, and .data/.bss/stack in RAM. Reset: copy .data (a few bytes: generated code
 * has no mutable globals), zero .bss, paint the stack so its high-water mark can be read
 * afterwards, enable the FPU (and Helium, the same enable bits) when the build uses one,
 * run main, and exit through semihosting with main's result. */
#include <stdint.h>
#include <string.h>

#include "mcu_board.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[], __stack_size[];
int main(void);

/* Semihosting: operation in r0, argument in r1, BKPT 0xAB traps to the host. */
static uint32_t semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

enum { SYS_WRITE0 = 0x04, SYS_EXIT = 0x18 };
enum { ADP_APPLICATION_EXIT = 0x20026, ADP_RUNTIME_ERROR = 0x20023 };

void mcu_puts(const char *s) { semihost(SYS_WRITE0, s); }

void mcu_exit(int ok) {
    /* On AArch32 the argument is the reason itself; QEMU exits 0 only for ApplicationExit. */
    semihost(SYS_EXIT, (const void *)(uintptr_t)(ok ? ADP_APPLICATION_EXIT : ADP_RUNTIME_ERROR));
    for (;;) {
    }
}

void mcu_put_hex(const char *tag, const void *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char line[260];
    const uint8_t *b = (const uint8_t *)p;
    size_t k = 0;
    mcu_puts(tag);
    mcu_puts(" ");
    while (n--) {
        line[k++] = digits[*b >> 4];
        line[k++] = digits[*b++ & 15];
        if (k == 256) {
            line[k] = 0;
            mcu_puts(line);
            k = 0;
        }
    }
    line[k++] = '\n';
    line[k] = 0;
    mcu_puts(line);
}

void mcu_put_u32(const char *tag, uint32_t v) {
    char text[12];
    int k = 11;
    text[k] = 0;
    do text[--k] = (char)('0' + v % 10), v /= 10; while (v);
    mcu_puts(tag);
    mcu_puts(" ");
    mcu_puts(text + k);
    mcu_puts("\n");
}

#define STACK_PAINT 0x5AC3A53Cu

uint32_t mcu_stack_size(void) { return (uint32_t)(uintptr_t)__stack_size; }

uint32_t mcu_stack_used(void) {
    const uint32_t *w = __stack_limit;
    while (w < __stack_top && *w == STACK_PAINT) w++;
    return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)w);
}

void Reset_Handler(void) {
    uint32_t *w;
    memcpy(__data_start, __data_load, (size_t)((uintptr_t)__data_end - (uintptr_t)__data_start));
    memset(__bss_start, 0, (size_t)((uintptr_t)__bss_end - (uintptr_t)__bss_start));
    /* Paint the stack below the current frame (this function's frame is small). */
    for (w = __stack_limit; (uintptr_t)w < (uintptr_t)__stack_top - 256; w++) *w = STACK_PAINT;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    /* CPACR: full access to CP10 and CP11 (the FPU; on Armv8.1-M also Helium). */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    mcu_exit(main() == 0);
}

static void Fault_Handler(void) {
    mcu_puts("MCU-FAULT\n");
    mcu_exit(0);
}

/* Initial stack pointer, reset, then NMI, HardFault, MemManage, BusFault, UsageFault,
 * SecureFault: every fault ends the run with a message instead of hanging QEMU. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top, Reset_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
};
