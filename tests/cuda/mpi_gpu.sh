#!/usr/bin/env bash
# GPU ranks and hybrid jobs under mpirun: one GPU per rank by
# node-local rank, CPU ranks beside them, and the image the same bytes as a
# CPU-only job (the exact GPU math rounds as the CPU does, and a row's sums
# travel between GPU and CPU ranks from pass to pass).
#   mpi_gpu.sh FARMRT SOURCE_DIR MPIEXEC
# Exits 77 (ctest: skipped) with a message when no GPU is usable.
set -euo pipefail
farmrt=$1 source_dir=$2 mpiexec=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scene="$source_dir/configs/spheres.yaml"
size=(--width 192 --height 108 --spp 24 --quiet)

if ! "$farmrt" "$scene" --width 8 --height 8 --spp 1 --quiet --backend cuda -o "$work/probe.pfm" \
    2>"$work/probe.err"; then
    echo "SKIPPED: no usable GPU: $(head -c 300 "$work/probe.err")"
    exit 77
fi
gpus=1
if command -v nvidia-smi >/dev/null 2>&1; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    [ "$gpus" -ge 1 ] || gpus=1
fi
[ -z "${CUDA_VISIBLE_DEVICES:-}" ] || gpus=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
gpu_ranks=$((gpus < 2 ? gpus : 2))
echo "GPUs visible: $gpus; GPU ranks used: $gpu_ranks"

"$mpiexec" -n 2 "$farmrt" "$scene" "${size[@]}" --backend cpu --threads 1 -o "$work/reference.pfm"

# check NAME EXPECTED_BACKENDS ARGS...: renders, compares the bytes with the
# CPU-only job, and checks each rank's backend in --stats (a space-separated
# list of prefixes, rank by rank, "_" standing for a space).
check() {
    local name=$1 expected=$2
    shift 2
    rm -f "$work/out.pfm" "$work/stats.json"
    "$@" -o "$work/out.pfm" --stats "$work/stats.json"
    if ! cmp -s "$work/reference.pfm" "$work/out.pfm"; then
        echo "FAIL: $name: the image differs from the CPU-only job"
        exit 1
    fi
    python3 - "$work/stats.json" "$expected" "$name" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
expected = sys.argv[2].split()
ranks = report["per_rank"]
backends = [r["backend"] for r in ranks]
assert len(backends) == len(expected), (backends, expected)
for rank, (backend, prefix) in enumerate(zip(backends, expected)):
    assert backend.replace(" ", "_").startswith(prefix), "rank %d: backend %r, expected %r" % (rank, backend, prefix)
assert sum(r["samples"] for r in ranks) == report["samples"], "samples do not add up"
print("ok: %s: %s" % (sys.argv[3], "; ".join("rank %d %s: %d bands, %d samples" % (
    r["rank"], r["backend"].split(" (")[0], r["bands"], r["samples"]) for r in ranks)))
PY
}

# One GPU rank (--gpus 0); one rank alone on its node, on every GPU; then
# one rank per GPU: each rank its own GPU.
check "1 GPU rank" "cuda:0" "$mpiexec" -n 1 "$farmrt" "$scene" "${size[@]}" --backend cuda --gpus 0
if [ "$gpus" -ge 2 ]; then
    check "1 rank, every GPU" "${gpus}_devices:_cuda:0" "$mpiexec" -n 1 "$farmrt" "$scene" "${size[@]}" --backend cuda
fi
if [ "$gpu_ranks" -ge 2 ]; then
    check "2 GPU ranks" "cuda:0 cuda:1" "$mpiexec" -n 2 "$farmrt" "$scene" "${size[@]}" --backend cuda
fi

# Hybrid: --backend auto gives the first ranks of the node the GPUs and the
# others the CPU tracer (the ranks see gpu_ranks GPUs, however many the
# machine has). Guided bands (CPU ranks may be left little), then
# fixed small bands and passes, so that CPU and GPU ranks both take rows and
# a row's sums go from one kind of rank to the other between passes.
CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((gpu_ranks - 1)))
export CUDA_VISIBLE_DEVICES
expected=""
for ((rank = 0; rank < gpu_ranks; ++rank)); do expected+="cuda:$rank "; done
expected+="cpu cpu"
check "hybrid, guided" "$expected" "$mpiexec" -n $((gpu_ranks + 2)) "$farmrt" "$scene" "${size[@]}" \
    --backend auto --threads 1
check "hybrid, 3-row bands, 4-sample passes" "$expected" "$mpiexec" -n $((gpu_ranks + 2)) "$farmrt" "$scene" \
    "${size[@]}" --backend auto --threads 1 --band 3 --pass-samples 4
python3 - "$work/stats.json" <<'PY'
import json, sys
ranks = json.load(open(sys.argv[1]))["per_rank"]
assert all(r["bands"] > 0 for r in ranks), "with 3-row bands every rank renders: %r" % [r["bands"] for r in ranks]
PY
# Static and cyclic schedules deal rows to GPU ranks as to any other.
check "hybrid, cyclic" "$expected" "$mpiexec" -n $((gpu_ranks + 2)) "$farmrt" "$scene" "${size[@]}" \
    --backend auto --threads 1 --schedule cyclic
# CPU-rank threads by default: the cores the GPU ranks leave.
"$mpiexec" -n $((gpu_ranks + 1)) "$farmrt" "$scene" "${size[@]}" --backend auto -o "$work/out.pfm" \
    --stats "$work/stats.json"
cmp -s "$work/reference.pfm" "$work/out.pfm" || { echo "FAIL: hybrid, default threads: image differs"; exit 1; }
python3 - "$work/stats.json" "$gpu_ranks" <<'PY'
import json, os, sys
ranks = json.load(open(sys.argv[1]))["per_rank"]
gpu_ranks = int(sys.argv[2])
cores = len(os.sched_getaffinity(0))
cpu = ranks[gpu_ranks]
assert cpu["backend"].startswith("cpu"), cpu["backend"]
assert cpu["threads"] == max(1, cores - gpu_ranks), "CPU rank threads %d on %d cores with %d GPU ranks" % (
    cpu["threads"], cores, gpu_ranks)
print("ok: hybrid, default threads: CPU rank has %d threads on %d cores" % (cpu["threads"], cores))
PY
echo "ok: GPU and hybrid jobs wrote the CPU-only job's bytes"
