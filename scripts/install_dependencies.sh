#!/usr/bin/env bash
# Installs the Debian 12 packages farmrt builds, tests and runs with.
# Runs apt-get as root, or through sudo for other users. Idempotent.
set -euo pipefail
packages=(
    build-essential cmake ninja-build pkg-config git python3
    libyaml-cpp-dev libopenimageio-dev libgtest-dev libgmock-dev libbenchmark-dev
    libopenmpi-dev openmpi-bin libxsimd-dev xtl-dev libtinyobjloader-dev
    python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install_dependencies: all packages present"
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install_dependencies: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
