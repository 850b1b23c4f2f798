#!/usr/bin/env bash
# One-step set-up on a fresh Debian 12 machine (as root, or a user with sudo):
# installs the missing packages farmrt builds and runs with (not the tests'),
# builds farmrt alone (Release) in build/, installs the binary in
# /usr/local/bin (its OpenImageIO module in /usr/local/lib/farmrt) and
# configures Open MPI for this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

scripts/install_dependencies.sh
# farmrt alone (the render preset: no tests, no benchmarks), installed by its
# install() rules with OpenImageIO's module, which it loads on demand
# (src/io/openimageio_module.h).
cmake --preset render >/dev/null
cmake --build --preset render -j "$(nproc)"
$sudo cmake --install build --prefix /usr/local >/dev/null
if [ -x scripts/configure_openmpi.sh ]; then
    scripts/configure_openmpi.sh
fi
echo "setup: farmrt $(/usr/local/bin/farmrt --version | cut -d' ' -f2) installed in /usr/local/bin"
