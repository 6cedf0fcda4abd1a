#!/bin/sh
# Installs what the Cortex-M builds and runs need (Debian packages), if missing:
# arm-none-eabi-gcc with newlib, and qemu-system-arm. Called by `make mcu-toolchain`
# (and so by `make test`, `make demo-mcu`, `make bench-mcu`).
exec sh "$(dirname "$0")/../cross/install.sh" Cortex-M cmd:arm-none-eabi-gcc=gcc-arm-none-eabi \
  dir:/usr/lib/arm-none-eabi/newlib=libnewlib-arm-none-eabi cmd:qemu-system-arm=qemu-system-arm
