/* main.c - person detection on a Cortex-M4, bare metal: runs mpcc's C for person_detect.tflite
 * (a 96x96 grayscale MobileNet, int8) on the two test images compiled into flash and prints
 * the scores over semihosting. `make demo-mcu` builds it and runs it under QEMU (mps2-an386);
 * README.md here says how, and how to take it to a board. */
#include <stdint.h>
#include <string.h>

#include "mcu_board.h"
#include "person_detect.h"

/* The images, as their .bmp files (bin2c.sh): 96x96, 8 bits per pixel, grayscale palette. */
extern const unsigned char person_bmp[], no_person_bmp[];
extern const unsigned long person_bmp_len, no_person_bmp_len;

/* The working memory: a static array, so the linker's map shows all RAM the model takes. */
static double arena[PERSON_DETECT_ARENA_BYTES / 8 + 1];

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The model's input from a BMP: rows top to bottom (a BMP stores them bottom-up), each
 * palette index taken as an int8, as the model's own test does. 0 if the file is not a
 * 96x96 8-bit BMP. */
static int load_bmp(const unsigned char *bmp, unsigned long len, int8_t *image) {
    enum { W = 96, H = 96 };
    uint32_t data;
    int y;
    if (len < 54 || bmp[0] != 'B' || bmp[1] != 'M' || le32(bmp + 18) != W || le32(bmp + 22) != H ||
        bmp[28] != 8)
        return 0;
    data = le32(bmp + 10);
    if (data > len || len - data < (unsigned long)W * H) return 0;
    for (y = 0; y < H; y++) memcpy(image + y * W, bmp + data + (uint32_t)(H - 1 - y) * W, W);
    return 1;
}

static int classify(const char *name, const unsigned char *bmp, unsigned long len) {
    static int8_t image[PERSON_DETECT_INPUT0_SIZE];
    int8_t scores[PERSON_DETECT_OUTPUT0_SIZE];
    const void *in[1];
    void *out[1];
    in[0] = image;
    out[0] = scores;
    if (!load_bmp(bmp, len, image)) {
        mcu_puts("not a 96x96 8-bit BMP\n");
        return 1;
    }
    if (person_detect_run(in, out, arena) != 0) return 1;
    mcu_puts(name);
    mcu_puts(scores[1] > scores[0] ? ": person\n" : ": no person\n");
    mcu_put_u32("  person score (0..255)", (uint32_t)(scores[1] + 128));
    mcu_put_u32("  no-person score (0..255)", (uint32_t)(scores[0] + 128));
    return 0;
}

int main(void) {
    int rc;
    person_detect_init(arena);
    rc = classify("person.bmp", person_bmp, person_bmp_len);
    rc |= classify("no_person.bmp", no_person_bmp, no_person_bmp_len);
    mcu_put_u32("arena bytes", PERSON_DETECT_ARENA_BYTES);
    mcu_put_u32("stack bytes used", mcu_stack_used());
    return rc;
}
