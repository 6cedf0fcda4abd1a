#!/bin/sh
# Installs what the AArch64 builds and runs need (Debian packages), if missing: the
# cross compiler aarch64-linux-gnu-gcc with its C library, and qemu-aarch64 (user mode).
# Called by `make a64-toolchain` (and so by `make test`).
set -e
missing=
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-aarch64-linux-gnu"
[ -f /usr/aarch64-linux-gnu/lib/libc.a ] || missing="$missing libc6-dev-arm64-cross"
command -v qemu-aarch64 >/dev/null 2>&1 || missing="$missing qemu-user"
[ -z "$missing" ] && exit 0
echo "installing the AArch64 toolchain:$missing"
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
  { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y --no-install-recommends $missing; }
