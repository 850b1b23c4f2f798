#!/usr/bin/env bash
# A job across two hosts, for real: two network namespaces, each with a
# hostname of its own (a UTS namespace), joined by a veth pair that carries
# only their two addresses; Open MPI over TCP, its daemons started on the far
# host through an rsh agent that enters that host's namespaces. Checks:
#   - the image equals the one-process image byte for byte (stills, adaptive
#     sampling with its AOVs, a frame sequence);
#   - ranks know their node: rank 0 alone on host A takes all its cores, the
#     two ranks of host B share theirs;
#   - a rank killed on the far host ends the job with a non-zero exit, its
#     loss named, no image written.
#   two_hosts.sh FARMRT SOURCE_DIR MPIEXEC
# Needs root (namespaces, veth) and iproute2; exits 77 (skipped) saying why
# where either is missing.
set -uo pipefail
farmrt=$(readlink -f "$1") source_dir=$2 mpiexec=$3
skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root: network namespaces need it"
command -v ip >/dev/null || skip "no ip command (iproute2)"
command -v unshare >/dev/null || skip "no unshare command (util-linux)"

work=$(mktemp -d)
suffix=$$
host_a=farmrt-a-$suffix host_b=farmrt-b-$suffix
# Addresses of this run only (a /30 of 10.77.x.y chosen by the process id).
net=10.77.$((suffix % 250)).$(((suffix / 250 % 60) * 4))
address_a=${net%.*}.$((${net##*.} + 1)) address_b=${net%.*}.$((${net##*.} + 2))
cleanup() {
    ip netns del "$host_a" 2>/dev/null
    ip netns del "$host_b" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$host_a" 2>"$work/netns.err" || skip "cannot create a network namespace: $(head -c 200 "$work/netns.err")"
ip netns add "$host_b" || exit 1
ip link add "vfa$suffix" type veth peer name "vfb$suffix" || skip "cannot create a veth pair"
ip link set "vfa$suffix" netns "$host_a" && ip link set "vfb$suffix" netns "$host_b" || exit 1
for side in "a $host_a $address_a vfa$suffix" "b $host_b $address_b vfb$suffix"; do
    read -r _ ns address device <<<"$side"
    ip netns exec "$ns" ip addr add "$address/30" dev "$device" &&
        ip netns exec "$ns" ip link set "$device" up && ip netns exec "$ns" ip link set lo up || exit 1
done

# The rsh agent Open MPI calls as "agent HOST COMMAND...", as it would call ssh.
cat >"$work/agent.sh" <<AGENT
#!/bin/sh
host=\$1; shift
case \$host in $address_a) ns=$host_a ;; $address_b) ns=$host_b ;; *) echo "agent: unknown host \$host" >&2; exit 1 ;; esac
exec ip netns exec \$ns unshare -u /bin/sh -c "hostname \$ns; \$*"
AGENT
chmod +x "$work/agent.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_param_files="$source_dir/mpi/openmpi-mca-params.conf"
# two_host_job ARGS...: mpirun on host A, rank 0 there and ranks 1 and 2 on host B.
two_host_job() {
    ip netns exec "$host_a" unshare -u /bin/sh -c 'hostname "$0"; exec "$@"' "$host_a" \
        "$mpiexec" --host "$address_a:1,$address_b:2" -n 3 --mca plm_rsh_agent "$work/agent.sh" \
        --mca btl tcp,self,vader --mca btl_tcp_if_include "$address_a/30" --mca oob_tcp_if_include "$address_a/30" \
        "$farmrt" "$@"
}

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
cd "$work" || exit 1
scene=$source_dir/configs/spheres.yaml
interior=$source_dir/configs/interior.yaml

# ---- the same bytes as one process ----------------------------------------------------------
"$farmrt" "$scene" --width 96 --height 54 --spp 16 --quiet -o one.pfm || exit 1
two_host_job "$scene" --width 96 --height 54 --spp 16 --quiet -o two.pfm --stats two.json 2>two.err ||
    fail "two-host still: exit $?: $(head -c 300 two.err)"
cmp -s one.pfm two.pfm || fail "two-host still: the image differs from the one-process image"
adaptive=(--width 80 --height 45 --spp 64 --min-spp 8 --noise-threshold 0.05 --aov samples,variance --quiet)
"$farmrt" "$interior" "${adaptive[@]}" -o one_adaptive.pfm || exit 1
two_host_job "$interior" "${adaptive[@]}" -o two_adaptive.pfm 2>two_adaptive.err ||
    fail "two-host adaptive: exit $?: $(head -c 300 two_adaptive.err)"
for aov in "" .samples .variance; do
    cmp -s "one_adaptive$aov.pfm" "two_adaptive$aov.pfm" || fail "two-host adaptive: $aov differs"
done
"$farmrt" "$scene" --width 48 --height 27 --spp 8 --frames 1-3 --set camera.vfov=25 --quiet -o one_##.pfm || exit 1
two_host_job "$scene" --width 48 --height 27 --spp 8 --frames 1-3 --set camera.vfov=25 --quiet -o two_##.pfm \
    2>two_frames.err || fail "two-host frames: exit $?: $(head -c 300 two_frames.err)"
for frame in 01 02 03; do
    cmp -s "one_$frame.pfm" "two_$frame.pfm" || fail "two-host frames: frame $frame differs"
done

# ---- each rank knows its node: hosts, and cores shared by the ranks of a node ----------------
if [ -s two.json ]; then
    python3 - two.json "$host_a" "$host_b" "$(nproc)" <<'PY' || fail "node-local assignment (above)"
import json, sys
report = json.load(open(sys.argv[1]))
host_a, host_b, cores = sys.argv[2], sys.argv[3], int(sys.argv[4])
ranks = {r["rank"]: r for r in report["per_rank"]}
hosts = [ranks[i]["host"] for i in range(3)]
assert hosts == [host_a, host_b, host_b], "ranks' hosts %r, expected %r" % (hosts, [host_a, host_b, host_b])
assert ranks[0]["threads"] == cores, "rank 0, alone on its host: %d threads of %d cores" % (ranks[0]["threads"], cores)
for i in (1, 2):
    expected = max(1, cores // 2)
    assert ranks[i]["threads"] == expected, "rank %d of two on host B: %d threads, expected %d" % (
        i, ranks[i]["threads"], expected)
assert all(ranks[i]["bands"] > 0 for i in range(3)), "every rank renders: %r" % [ranks[i]["bands"] for i in range(3)]
print("ok: ranks on %s, %s, %s with %d, %d, %d threads" % (hosts[0], hosts[1], hosts[2], ranks[0]["threads"],
                                                            ranks[1]["threads"], ranks[2]["threads"]))
PY
fi

# ---- a rank lost on the far host --------------------------------------------------------------
start=$(date +%s)
two_host_job "$scene" --width 64 --height 40 --spp 8 --quiet --schedule static --band 2 \
    --inject-failure 2:2:kill -o lost.pfm >lost.out 2>lost.err
code=$?
elapsed=$(($(date +%s) - start))
[ "$code" -ne 0 ] || fail "a rank killed on host B: exit 0"
[ "$elapsed" -le 60 ] || fail "a rank killed on host B: the job took ${elapsed}s to end"
grep -Eq "rank 2|$host_b" lost.err || fail "a rank killed on host B: no line names it: $(head -c 300 lost.err)"
[ -e lost.pfm ] && fail "a rank killed on host B: an image was written"

if [ "$failures" -gt 0 ]; then
    echo "$failures two-host checks failed"
    exit 1
fi
echo "all two-host checks passed ($host_a at $address_a, $host_b at $address_b)"
