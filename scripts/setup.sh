#!/usr/bin/env bash
# One-step set-up on a fresh Debian 12 machine (as root, or a user with sudo):
# installs missing packages, builds farmrt (Release) in build/, installs the
# binary in /usr/local/bin (its OpenImageIO module in /usr/local/lib/farmrt)
# and configures Open MPI for this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

scripts/install_dependencies.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
$sudo install -m 755 build/farmrt /usr/local/bin/farmrt
# OpenImageIO's module, loaded on demand (src/io/openimageio_module.h).
if [ -f build/libfarmrt_openimageio.so ]; then
    $sudo install -D -m 644 build/libfarmrt_openimageio.so /usr/local/lib/farmrt/libfarmrt_openimageio.so
fi
if [ -x scripts/configure_openmpi.sh ]; then
    scripts/configure_openmpi.sh
fi
echo "setup: farmrt $(/usr/local/bin/farmrt --version | cut -d' ' -f2) installed in /usr/local/bin"
