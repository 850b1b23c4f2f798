#!/usr/bin/env bash
# Configures Open MPI (Debian 12's 4.1) so that `mpirun -n 8 farmrt scene.yaml`
# works as it stands on an ordinary machine: with more ranks than cores, inside
# containers, and as root. Called by scripts/setup.sh; idempotent.
#  - copies mpi/openmpi-mca-params.conf into Open MPI's system-wide parameter
#    file (between farmrt markers, replacing an earlier copy);
#  - when run as root, installs /usr/local/bin/mpirun and mpiexec wrappers that
#    let root start jobs (Open MPI refuses root unless told, and only the
#    command line or the environment can tell it).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# The two locations can be moved for a dry run: FARMRT_OPENMPI_PARAMS_FILE, FARMRT_WRAPPER_DIR.
system_file=${FARMRT_OPENMPI_PARAMS_FILE:-/etc/openmpi/openmpi-mca-params.conf}
wrapper_dir=${FARMRT_WRAPPER_DIR:-/usr/local/bin}
begin="# >>> farmrt (scripts/configure_openmpi.sh) >>>"
end="# <<< farmrt <<<"
if [ ! -d "$(dirname "$system_file")" ]; then
    echo "configure_openmpi: $(dirname "$system_file") not found: is openmpi-bin installed?" >&2
    exit 1
fi
current=""
[ -f "$system_file" ] && current=$(sed "\|^$begin\$|,\|^$end\$|d" "$system_file")
{
    [ -n "$current" ] && printf '%s\n' "$current"
    echo "$begin"
    grep -v '^#' mpi/openmpi-mca-params.conf | grep -v '^[[:space:]]*$'
    echo "$end"
} | $sudo tee "$system_file.farmrt-new" >/dev/null
$sudo mv "$system_file.farmrt-new" "$system_file"
echo "configure_openmpi: farmrt settings in $system_file"

if [ "$(id -u)" -eq 0 ]; then
    for name in mpirun mpiexec; do
        real=/usr/bin/$name
        [ -x "$real" ] || continue
        cat > $wrapper_dir/$name.farmrt-new <<WRAPPER
#!/bin/sh
# Installed by farmrt's scripts/configure_openmpi.sh: Open MPI refuses to run
# as root unless told; on this machine root runs jobs (containers, CI).
if [ "\$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec $real "\$@"
WRAPPER
        chmod 755 $wrapper_dir/$name.farmrt-new
        mv $wrapper_dir/$name.farmrt-new $wrapper_dir/$name
    done
    hash -r 2>/dev/null || true
    echo "configure_openmpi: root may run mpirun (wrappers in $wrapper_dir)"
fi
