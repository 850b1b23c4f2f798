#!/usr/bin/env bash
# --stats under mpirun: one report, from rank 0, with every rank's figures,
# and job figures consistent with them; the rays traced are those of the
# same render in one process.
#   mpi_stats.sh FARMRT SOURCE_DIR MPIEXEC
set -euo pipefail
farmrt=$1 source_dir=$2 mpiexec=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mpiexec" -n 3 "$farmrt" "$source_dir/configs/tiny.yaml" --width 64 --height 40 --spp 4 --quiet \
    --threads 1 --schedule dynamic -o "$work/out.pfm" --stats "$work/stats.json"
"$farmrt" "$source_dir/configs/tiny.yaml" --width 64 --height 40 --spp 4 --quiet --threads 2 \
    -o "$work/one.pfm" --stats "$work/one.json"
python3 - "$work/stats.json" "$work/one.json" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1]))
one_process = json.load(open(sys.argv[2]))
ranks = report["per_rank"]
assert report["ranks"] == 3 and len(ranks) == 3, report["ranks"]
assert [r["rank"] for r in ranks] == [0, 1, 2]
keys = ["host", "backend", "threads", "bands", "samples", "busy_seconds", "waiting_seconds",
        "communicating_seconds", "bytes_sent", "setup_seconds"]
for r in ranks:
    for key in keys:
        assert key in r, (key, r)
    assert r["threads"] == 1 and r["host"] and r["backend"]
    # Each rank's own peak memory: at least the scene and its process, at most the machine.
    assert 1 << 20 < r["peak_resident_bytes"] < os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), r
    assert r["busy_seconds"] >= 0 and r["waiting_seconds"] >= 0 and r["communicating_seconds"] >= 0
assert sum(r["samples"] for r in ranks) == report["samples"] == 64 * 40 * 4
assert sum(r["bands"] for r in ranks) == report["bands"]
# Rank 0's devices: its one CPU renderer, with rank 0's own items and samples.
devices = report["devices"]
assert len(devices) == 1 and devices[0]["device"], devices
assert devices[0]["samples"] == ranks[0]["samples"] and devices[0]["items"] == ranks[0]["bands"], devices
if devices[0]["items"] > 0:
    assert 0 <= devices[0]["first_start_seconds"] <= devices[0]["last_end_seconds"] <= report["render_seconds"] + 0.01
# Every worker sent at least its bands' sums (64 pixels x 3 floats per row).
for r in ranks[1:]:
    assert r["bytes_sent"] >= r["samples"] // 4 * 3 * 4, r
busy = [r["busy_seconds"] for r in ranks]
mean = sum(busy) / 3
if mean > 0:
    assert abs(report["load_imbalance"] - max(busy) / mean) < 1e-3 * report["load_imbalance"]
for key in ["wall_seconds", "render_seconds", "samples_per_second", "parallel_efficiency",
            "communication_fraction", "schedule"]:
    assert key in report, key
assert report["schedule"] == "dynamic"
# Rays: each rank's by kind, adding up to the job's, which are the one-process render's.
kinds = ["camera", "extension", "shadow"]
rays = report["rays"]
for kind in kinds:
    assert sum(r["rays"][kind] for r in ranks) == rays[kind] == one_process["rays"][kind], (kind, rays, one_process)
assert rays["camera"] == report["samples"], rays
assert rays["extension"] > 0 and rays["shadow"] > 0, rays
assert rays["total"] == sum(rays[kind] for kind in kinds)
assert abs(rays["per_second"] - rays["total"] / report["render_seconds"]) <= 1e-3 * rays["per_second"], rays
assert 0 <= report["parallel_efficiency"] <= 1.0001
print("ok: stats of 3 ranks")
PY
