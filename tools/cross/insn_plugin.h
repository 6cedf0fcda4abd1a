/* insn_plugin.h - the set-up shared by mpcc's QEMU TCG plugins (tools/cortex_m/insn_count.c,
 * tools/arm64/insn_prof.c): the API version symbol and qemu_plugin_install, which registers the
 * including file's on_translate (called for each translated block), report_at_exit and on_mark.
 *
 * A mark is a system call that a guest program makes on purpose to delimit what it wants
 * counted: lseek(-1, MPCC_MARK, 0) (it fails with EBADF and does nothing else). The plugin sees
 * it before the kernel does and calls on_mark with the mark's number (0, 1, ...). A peer whose
 * start-up varies from run to run (tools/arm64/peer_invoke.py: CPython and TFLite) marks the
 * start and the end of its timed invocations. Include this file once, after qemu-plugin.h. */
#ifndef MPCC_INSN_PLUGIN_H
#define MPCC_INSN_PLUGIN_H

#define MPCC_MARK 0x6d706363u /* "mpcc" */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void report_at_exit(qemu_plugin_id_t id, void *data);
static void on_mark(unsigned mark);

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                       uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8) {
    static unsigned marks;
    (void)id;
    (void)vcpu;
    (void)num;
    (void)a3;
    (void)a4;
    (void)a5;
    (void)a6;
    (void)a7;
    (void)a8;
    /* the fd -1 as a 64-bit or a 32-bit guest passes it */
    if ((a1 == UINT64_MAX || a1 == UINT32_MAX) && a2 == MPCC_MARK) on_mark(marks++);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    (void)argc;
    (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, report_at_exit, NULL);
    return 0;
}

#endif
