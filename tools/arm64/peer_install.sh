#!/bin/sh
# Installs the peer of `make bench-arm64` into build/arm64/peer (once; nothing outside build/):
# an arm64 CPython 3.11 unpacked from Debian's arm64 packages (sysroot/, for qemu-aarch64 -L)
# and the manylinux aarch64 wheels of ai-edge-litert and numpy, at the versions of
# tests/requirements.txt, unpacked into site/ (the guest's PYTHONPATH). Debian's package lists
# for arm64 go to a private apt state (apt/): the machine's dpkg architectures and lists stay as
# they are. Needs apt-get and a Python with pip (PYTHON, default .venv/bin/python).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/arm64/peer
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
[ -f "$OUT/.stamp" ] && [ "$OUT/.stamp" -nt "$ROOT/tests/requirements.txt" ] && [ "$OUT/.stamp" -nt "$0" ] && exit 0
echo "installing the AArch64 peer (arm64 CPython + ai-edge-litert) into build/arm64/peer"
rm -rf "$OUT/sysroot" "$OUT/site" "$OUT/.stamp"
mkdir -p "$OUT/apt/lists/partial" "$OUT/apt/cache/archives/partial" "$OUT/debs" "$OUT/wheels" "$OUT/sysroot" "$OUT/site"
KEY=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$OUT/apt/sources.list" <<EOS
deb [arch=arm64 signed-by=$KEY] http://deb.debian.org/debian bookworm main
deb [arch=arm64 signed-by=$KEY] http://deb.debian.org/debian-security bookworm-security main
EOS
: > "$OUT/apt/status"
APT="-o Dir::State=$OUT/apt -o Dir::State::status=$OUT/apt/status -o Dir::Cache=$OUT/apt/cache
 -o Dir::Etc::SourceList=$OUT/apt/sources.list -o Dir::Etc::SourceParts=/nonexistent
 -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o APT::Sandbox::User=root"
apt-get $APT update -q >/dev/null
# CPython and the shared libraries it and the wheels load (the C and C++ runtimes, zlib, ...)
(cd "$OUT/debs" && apt-get $APT download -q python3.11-minimal libpython3.11-minimal libpython3.11-stdlib \
  libc6 libgcc-s1 libstdc++6 zlib1g libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 >/dev/null)
for deb in "$OUT"/debs/*.deb; do dpkg -x "$deb" "$OUT/sysroot"; done
pins=$(grep -E '^(numpy|ai-edge-litert)==' "$ROOT/tests/requirements.txt")
"$PYTHON" -m pip download -q --disable-pip-version-check -d "$OUT/wheels" --only-binary=:all: \
  --platform manylinux_2_27_aarch64 --platform manylinux2014_aarch64 --python-version 3.11 $pins
for whl in "$OUT"/wheels/*.whl; do "$PYTHON" -m zipfile -e "$whl" "$OUT/site"; done
touch "$OUT/.stamp"
