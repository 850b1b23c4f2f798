#!/usr/bin/env bash
# Registers, occupancy and issue rate of each GPU kernel of the committed
# tree (18795fb), one call on one H200: its farmrt, built on the dev VM,
# xz-compressed in .deps/ship/farmrt.xz. Nsight Compute (clocks as found):
#   the megakernel: the ninth launch of spheres.yaml at 1200x675, 4096 spp,
#     exact and fast math;
#   the split kernels: one iteration (launches 3001-3007) of cornell.yaml
#     and of models.yaml at 1024 spp, and of the million triangles at 256 spp.
# summary.txt: one line a kernel.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
F=/tmp/farmrt; xz -dc "$root/.deps/ship/farmrt.xz" > $F; chmod +x $F
$F --version | tee "$out/version.txt"
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1 || { cat /tmp/scene.log; exit 1; }
sections=(--section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SchedulerStats)
profile() {  # NAME KERNEL_REGEX SKIP COUNT ARGS...
  local name=$1 regex=$2 skip=$3 count=$4; shift 4
  timeout -k 3 110 ncu --clock-control none "${sections[@]}" -k "regex:$regex" --launch-skip $skip --launch-count $count \
    $F "$@" --backend cuda --quiet -o /tmp/n.pfm > "$out/ncu_$name.txt" 2>&1
  echo "ncu $name rc=$? at $((SECONDS - s)) s"
}
profile spheres_exact path_kernel 8 1 configs/spheres.yaml --width 1200 --height 675 --spp 4096
profile spheres_fast path_kernel 8 1 configs/spheres.yaml --width 1200 --height 675 --spp 4096 --gpu-math fast
profile cornell wavefront 3000 7 configs/cornell.yaml --spp 1024
profile models wavefront 3000 7 configs/models.yaml --spp 1024
profile env wavefront 2000 7 /tmp/env_model.yaml --spp 256
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, os, re, sys
keys = [("Duration", "us"), ("Registers Per Thread", ""), ("Theoretical Occupancy", "%"), ("Achieved Occupancy", "%"),
        ("Issued Warp Per Scheduler", ""), ("Avg. Active Threads Per Warp", ""), ("Compute (SM) Throughput", "%"),
        ("Memory Throughput", "%")]
print("%-14s %-34s %10s %5s %7s %7s %7s %7s %6s %6s" % ("case", "kernel", "time", "regs", "theor%", "achv%", "issue", "lanes", "SM%", "mem%"))
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ncu_*.txt"))):
    case = os.path.basename(path)[4:-4]
    text = open(path).read()
    for block in re.split(r"\n  (?=\S)", text)[1:]:
        name = re.sub(r"\(.*", "", block.split("\n")[0]).strip()
        name = re.sub(r"^void ", "", name)[:34]
        vals = []
        for k, unit in keys:
            m = re.search(re.escape(k) + r"\s+(\S*)\s+([\d,.]+)", block)
            vals.append(m.group(2) + ("" if m.group(1) in ("", "%", "register/thread", "inst", "warp") else m.group(1)) if m else "-")
        print("%-14s %-34s %10s %5s %7s %7s %7s %7s %6s %6s" % (case, name, *vals))
PY
