/* insn_profile.c - a QEMU TCG plugin that counts the guest instructions retired per translated
 * block, for a per-function profile (tools/cortex_m/bench_mcu.py --profile maps the block
 * addresses to symbols with nm). At exit it writes one "pc N" line per block start address
 * (hex) that ran, N its instructions retired, to QEMU's plugin log (-d plugin: stderr).
 *
 * Built like insn_count.c, against qemu-plugin.h from Debian's qemu source package. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* Open addressing on the block's start address; a block translated again (same pc) shares
 * its slot. */
#define SLOTS (1u << 16)
typedef struct slot {
    uint64_t pc, count;
} slot;
static slot table[SLOTS];

static slot *find(uint64_t pc) {
    uint32_t h = (uint32_t)((pc >> 1) * 2654435761u) & (SLOTS - 1);
    for (uint32_t i = 0; i < SLOTS; i++, h = (h + 1) & (SLOTS - 1))
        if (table[h].pc == pc || table[h].pc == 0) {
            table[h].pc = pc;
            return &table[h];
        }
    return NULL;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    slot *s = find(qemu_plugin_tb_vaddr(tb) | 1u); /* | 1: pc 0 is a valid address */
    (void)id;
    if (s)
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &s->count, qemu_plugin_tb_n_insns(tb));
}

static void report_at_exit(qemu_plugin_id_t id, void *data) {
    char line[64];
    (void)id;
    (void)data;
    for (uint32_t i = 0; i < SLOTS; i++)
        if (table[i].pc && table[i].count) {
            snprintf(line, sizeof line, "pc %" PRIx64 " %" PRIu64 "\n", table[i].pc & ~(uint64_t)1, table[i].count);
            qemu_plugin_outs(line);
        }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    (void)argc;
    (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, report_at_exit, NULL);
    return 0;
}
