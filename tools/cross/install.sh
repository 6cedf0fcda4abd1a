#!/bin/sh
# Installs the Debian packages a cross target needs, those whose check fails, with apt-get
# (updating the lists once if the install fails). Used by tools/arm64/install.sh and
# tools/cortex_m/install.sh:
#   sh tools/cross/install.sh NAME CHECK=PACKAGE ...
# where CHECK is cmd:PROGRAM (on PATH), file:PATH or dir:PATH.
set -e
name=$1
shift
missing=
for item in "$@"; do
  check=${item%%=*}
  pkg=${item#*=}
  case $check in
    cmd:*) command -v "${check#cmd:}" >/dev/null 2>&1 || missing="$missing $pkg" ;;
    file:*) [ -f "${check#file:}" ] || missing="$missing $pkg" ;;
    dir:*) [ -d "${check#dir:}" ] || missing="$missing $pkg" ;;
    *) echo "tools/cross/install.sh: bad check '$check'" >&2; exit 1 ;;
  esac
done
[ -z "$missing" ] && exit 0
echo "installing the $name toolchain:$missing"
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
  { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y --no-install-recommends $missing; }
