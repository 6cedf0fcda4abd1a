#!/bin/sh
# Installs what the AArch64 builds and runs need (Debian packages), if missing: the
# cross compiler aarch64-linux-gnu-gcc with its C library, and qemu-aarch64 (user mode).
# Called by `make a64-toolchain` (and so by `make test`).
exec sh "$(dirname "$0")/../cross/install.sh" AArch64 cmd:aarch64-linux-gnu-gcc=gcc-aarch64-linux-gnu \
  file:/usr/aarch64-linux-gnu/lib/libc.a=libc6-dev-arm64-cross cmd:qemu-aarch64=qemu-user
