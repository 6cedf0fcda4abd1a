/* insn_count.c - a QEMU TCG plugin that counts the guest instructions retired, for
 * `make bench-mcu` and `make bench-arm64`. At exit it writes "insns N" to QEMU's plugin log
 * (-d plugin: stderr). Each translated block adds its instruction count, inline, every time it
 * runs (no callback per instruction, so the count costs little time).
 *
 * A guest's mark (tools/cross/insn_plugin.h) writes "mark K N": the instructions retired so far.
 *
 * Built against qemu-plugin.h from Debian's qemu source package (the bench script fetches it
 * with `apt-get source`; the header is not part of the repository):
 *   cc -shared -fPIC -I DIR_WITH_qemu-plugin.h -o insn_count.so insn_count.c */
#include <inttypes.h>
#include <stdio.h>

#include <qemu-plugin.h>

#include "../cross/insn_plugin.h"

static uint64_t insns;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void on_mark(unsigned mark) {
    char line[64];
    snprintf(line, sizeof line, "mark %u %" PRIu64 "\n", mark, insns);
    qemu_plugin_outs(line);
}

static void report_at_exit(qemu_plugin_id_t id, void *data) {
    char line[64];
    (void)id;
    (void)data;
    snprintf(line, sizeof line, "insns %" PRIu64 "\n", insns);
    qemu_plugin_outs(line);
}
