/* mcu_board.h - the little a bare-metal Cortex-M program needs from samples/cortex-m/:
 * console output and exit through semihosting (QEMU's -semihosting; a debugger's on a
 * real board), and the stack's high-water mark. startup.c provides the vector table
 * and the reset handler, which calls main() and then mcu_exit(main's result). */
#ifndef MCU_BOARD_H
#define MCU_BOARD_H

#include <stddef.h>
#include <stdint.h>

/* Writes a NUL-terminated string to the host's console. */
void mcu_puts(const char *s);
/* Writes text of the form "<tag> <hex bytes>\n" for n bytes at p. */
void mcu_put_hex(const char *tag, const void *p, size_t n);
/* Writes "<tag> <decimal>\n". */
void mcu_put_u32(const char *tag, uint32_t v);
/* Ends the program: QEMU exits with status 0 if ok is nonzero, 1 otherwise. */
void mcu_exit(int ok);
/* Bytes of the stack touched since reset (startup.c paints the stack before main). */
uint32_t mcu_stack_used(void);
/* Bytes of the stack region (the linker script's __stack_size). */
uint32_t mcu_stack_size(void);

#endif
