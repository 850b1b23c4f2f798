#!/usr/bin/env bash
# Installs the Debian 12 packages farmrt builds and runs with; with --tests,
# also those only the tests, fuzzing and benchmarks need (scripts/test.sh).
# Runs apt-get as root, or through sudo for other users. Idempotent.
# openimageio-tools: Debian 12's OpenImageIO CMake package imports its command-line
# tools (iconvert, ...) and find_package(OpenImageIO) fails when they are missing.
# libassimp-dev: STL, Collada, FBX and 3DS models (cmake -DFARMRT_WITH_ASSIMP=OFF builds without).
# assimp-testmodels: real glTF, OBJ, PLY, STL, Collada, FBX and 3DS models,
# valid and broken, that the model import tests read (data only, 20 MB).
# clang, its runtime and OpenMP: scripts/fuzz.sh builds the libFuzzer targets with clang;
# clang-format: scripts/test.sh checks the tree against .clang-format.
# slurm-wlm and munge: tests/slurm/run_slurm_test.sh stands up a one-node Slurm
# cluster from them (the ctest farm_slurm_cluster); their services are not
# started by the install (see policy-rc.d below), the test runs its own daemons.
set -euo pipefail
packages=(
    build-essential cmake ninja-build pkg-config git python3
    libyaml-cpp-dev libopenimageio-dev openimageio-tools
    libopenmpi-dev openmpi-bin libxsimd-dev xtl-dev libtinyobjloader-dev libtinygltf-dev libcli11-dev
    libassimp-dev
)
case "${1:-}" in
    --tests)
        packages+=(
            libgtest-dev libgmock-dev libbenchmark-dev
            assimp-testmodels
            python3-matplotlib
            clang libclang-rt-14-dev libomp-dev clang-format
            slurm-wlm slurmctld slurmd slurm-client munge
            iproute2
        ) ;;
    "") ;;
    *) echo "install_dependencies: unknown option $1 (expected --tests or nothing)" >&2; exit 2 ;;
esac
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
# Package scripts start services (munged, slurmctld, slurmd) where there is no
# policy saying otherwise; in a container without an init system that fails or
# leaves stray daemons. Deny starts for the install, as Debian's container images do.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# install_dependencies.sh: no service starts during the install\nexit 101\n' |
        $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Slurm test runs its own daemons: none of them starts at boot.
if [ "${1:-}" = --tests ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    $sudo systemctl disable --quiet munge slurmctld slurmd 2>/dev/null || true
fi
