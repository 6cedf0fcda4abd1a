#!/bin/sh
# Installs what the Cortex-M builds and runs need (Debian packages), if missing:
# arm-none-eabi-gcc with newlib, and qemu-system-arm. Called by `make mcu-toolchain`
# (and so by `make test`, `make demo-mcu`, `make bench-mcu`).
set -e
missing=
command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing="$missing gcc-arm-none-eabi"
[ -d /usr/lib/arm-none-eabi/newlib ] || missing="$missing libnewlib-arm-none-eabi"
command -v qemu-system-arm >/dev/null 2>&1 || missing="$missing qemu-system-arm"
[ -z "$missing" ] && exit 0
echo "installing the Cortex-M toolchain:$missing"
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
  { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y --no-install-recommends $missing; }
