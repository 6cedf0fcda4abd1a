/* insn_prof.c - a QEMU TCG plugin that counts the guest instructions retired per translated
 * block, for finding where an AArch64 program spends them (tools/arm64/bench_a64.py --profile
 * maps the block addresses to functions). At exit it writes "tb PC INSNS" per block (blocks
 * translated more than once appear more than once) to QEMU's plugin log (-d plugin: stderr),
 * after a line "exit"; at a guest's mark (tools/cross/insn_plugin.h) "mark K" and the lines so far.
 * Built like tools/cortex_m/insn_count.c, against qemu-plugin.h of Debian's qemu source:
 *   cc -shared -fPIC -I DIR_WITH_qemu-plugin.h -o insn_prof.so insn_prof.c */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <qemu-plugin.h>

#include "../cross/insn_plugin.h"

typedef struct block {
    uint64_t pc, insns, runs;
    struct block *next;
} block;

static block *blocks;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    block *b = calloc(1, sizeof *b);
    (void)id;
    if (!b) return;
    b->pc = qemu_plugin_tb_vaddr(tb);
    b->insns = qemu_plugin_tb_n_insns(tb);
    b->next = blocks; /* (qemu-user translates on one thread at a time here: the program is single-threaded) */
    blocks = b;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->runs, 1);
}

static void report(void) {
    char line[96];
    const block *b;
    for (b = blocks; b; b = b->next)
        if (b->runs) {
            snprintf(line, sizeof line, "tb %" PRIx64 " %" PRIu64 "\n", b->pc, b->insns * b->runs);
            qemu_plugin_outs(line);
        }
}

static void on_mark(unsigned mark) {
    char line[32];
    snprintf(line, sizeof line, "mark %u\n", mark);
    qemu_plugin_outs(line);
    report();
}

static void report_at_exit(qemu_plugin_id_t id, void *data) {
    (void)id;
    (void)data;
    qemu_plugin_outs("exit\n");
    report();
}
