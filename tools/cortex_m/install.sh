#!/bin/sh
# Installs what the Cortex-M builds and runs need (Debian packages), if missing:
# arm-none-eabi-gcc with newlib, and qemu-system-arm. Called by `make mcu-toolchain`
# (and so by `make test`, `make demo-mcu`, `make bench-mcu`).
#   sh tools/cortex_m/install.sh [peer]
# peer: also the C++ library the peer of `make bench-mcu` (TFLite Micro, C++) is built with
# (tools/cortex_m/bench_mcu.py asks for it when it has the peer's sources).
peer=
[ "$1" = peer ] && peer=file:/usr/lib/arm-none-eabi/newlib/libstdc++_nano.a=libstdc++-arm-none-eabi-newlib
exec sh "$(dirname "$0")/../cross/install.sh" Cortex-M cmd:arm-none-eabi-gcc=gcc-arm-none-eabi \
  dir:/usr/lib/arm-none-eabi/newlib=libnewlib-arm-none-eabi cmd:qemu-system-arm=qemu-system-arm $peer
