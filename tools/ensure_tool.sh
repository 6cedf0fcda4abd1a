#!/bin/sh
# ensure_tool.sh COMMAND PACKAGE [ALTERNATIVE_COMMAND...]: prints the path of COMMAND (or of an
# alternative), installing the Debian package PACKAGE with apt-get when none is on PATH (CI starts
# from a fresh machine; `make test` needs cmake and chromium). Exits 1 with a message when that is
# impossible, so the test that needs it fails saying why.
cmd=$1 pkg=$2
[ -n "$cmd" ] && [ -n "$pkg" ] || { echo "usage: ensure_tool.sh COMMAND PACKAGE [ALTERNATIVES...]" >&2; exit 2; }
shift 2
for c in "$cmd" "$@"; do
    p=$(command -v "$c" 2>/dev/null) && { echo "$p"; exit 0; }
done
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_tool: $cmd is not on PATH and there is no apt-get to install Debian's $pkg package" >&2
    exit 1
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
install() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$pkg" >&2; }
# apt's lock may be held by another installer for a while: retry for up to 5 minutes.
i=0
until install || { $SUDO apt-get update -q >&2 && install; }; do
    i=$((i + 1))
    if [ $i -ge 30 ]; then
        echo "ensure_tool: 'apt-get install $pkg' failed (see above)" >&2
        exit 1
    fi
    sleep 10
done
p=$(command -v "$cmd" 2>/dev/null) || { echo "ensure_tool: $pkg installed but $cmd is not on PATH" >&2; exit 1; }
echo "$p"
