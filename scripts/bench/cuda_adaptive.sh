#!/usr/bin/env bash
# What adaptive sampling costs the GPU per sample taken, against uniform
# sampling's cost per sample, on configs/interior.yaml (a bright sky and
# facade that stop early, a dark room lit through its door that takes every
# sample): exact math, at most 1024 spp, min_spp 16, for each
#   - launch lookahead (FARMRT_CUDA_LOOKAHEAD: how far a launch traces past
#     the pixels' next decision; 0 ends every launch at a decision),
#   - samples per work item (FARMRT_CUDA_CHUNK_SAMPLES, megakernel only),
#   - integrator (FARMRT_CUDA_INTEGRATOR),
# all interleaved REPEATS times; medians of the render phase (--stats) and
# of the whole command. The CPU's same ratio (all its threads, one run each)
# is the cost of the sample mix itself: the samples adaptive sampling saves
# are the cheap ones (a sky sample is one ray, a room sample a dozen), so a
# ratio of 1.0 is out of reach on any backend. Every variant's image must be
# the same bytes as the first's (printed).
#
#   scripts/bench/cuda_adaptive.sh FARMRT OUT_DIR [REPEATS]   (default 3)
# SIZES (default "480x270 1920x1080"), THRESHOLDS ("0.02 0.01"),
# LOOKAHEADS ("0 25 50 100"), CHUNKS ("4 16"), INTEGRATORS ("megakernel split")
# choose the grid; at sizes above 480x270 only the first threshold runs.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
farmrt=${1:?usage: bench/cuda_adaptive.sh FARMRT OUT_DIR [REPEATS]}
out=${2:?usage: bench/cuda_adaptive.sh FARMRT OUT_DIR [REPEATS]}
repeats=${3:-3}
read -r -a sizes <<<"${SIZES:-480x270 1920x1080}"
read -r -a thresholds <<<"${THRESHOLDS:-0.02 0.01}"
read -r -a lookaheads <<<"${LOOKAHEADS:-0 25 50 100}"
read -r -a chunks <<<"${CHUNKS:-4 16}"
read -r -a integrators <<<"${INTEGRATORS:-megakernel split}"
mkdir -p "$out"
cd "$root" || exit 1
times=$out/times.txt
: >"$times"

# run LABEL ENV... -- ARGS...: one render; appends "LABEL wall render samples" to times.txt.
run() {
  local label=$1; shift
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  local start end
  start=$(date +%s.%N)
  env "${env[@]}" "$farmrt" configs/interior.yaml "$@" -q -o "$out/$label.pfm" --stats "$out/$label.json" \
    >/dev/null 2>"$out/$label.err" || { echo "failed: $label: $(tail -n 1 "$out/$label.err")" >&2; return 1; }
  end=$(date +%s.%N)
  python3 - "$out/$label.json" "$label" "$start" "$end" >>"$times" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
print(sys.argv[2], "%.4f" % (float(sys.argv[4]) - float(sys.argv[3])), stats["render_seconds"], stats["samples"])
PY
}

# The CPU's ratio, once (the sample mix's own cost).
for size in "${sizes[0]}"; do
  IFS=x read -r w h <<<"$size"
  run "cpu_${size}_uniform" -- --width "$w" --height "$h" --spp 128 --noise-threshold 0 --backend cpu
  run "cpu_${size}_adaptive_${thresholds[0]}" -- --width "$w" --height "$h" --spp 1024 --min-spp 16 \
    --noise-threshold "${thresholds[0]}" --backend cpu
done
for rep in $(seq "$repeats"); do
  for size in "${sizes[@]}"; do
    IFS=x read -r w h <<<"$size"
    view=(--width "$w" --height "$h" --backend cuda)
    run "gpu_${size}_uniform" -- "${view[@]}" --spp 128 --noise-threshold 0
    size_thresholds=("${thresholds[@]}")
    [ "$size" = "${sizes[0]}" ] || size_thresholds=("${thresholds[0]}")
    for threshold in "${size_thresholds[@]}"; do
      for integrator in "${integrators[@]}"; do
        integrator_chunks=("${chunks[@]}")
        [ "$integrator" = split ] && integrator_chunks=(1)
        for lookahead in "${lookaheads[@]}"; do
          for chunk in "${integrator_chunks[@]}"; do
            run "gpu_${size}_adaptive_${threshold}_${integrator}_ahead${lookahead}_chunk${chunk}" \
              FARMRT_CUDA_INTEGRATOR="$integrator" FARMRT_CUDA_LOOKAHEAD="$lookahead" FARMRT_CUDA_CHUNK_SAMPLES="$chunk" -- \
              "${view[@]}" --spp 1024 --min-spp 16 --noise-threshold "$threshold"
          done
        done
      done
    done
  done
done

python3 - "$times" "$out" <<'PY'
import collections, filecmp, glob, os, re, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, wall, render, samples = line.split()
    runs[label].append((float(wall), float(render), float(samples)))
def median(label, i):
    return statistics.median(r[i] for r in runs[label])
def ns_per_sample(label):
    return median(label, 1) / median(label, 2) * 1e9
print("| backend | size | threshold | integrator | lookahead % | samples per item | samples taken per pixel | render s | whole command s | ns per sample taken | / uniform's |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
for label in runs:
    parts = label.split("_")
    backend, size, kind = parts[0], parts[1], parts[2]
    uniform = f"{backend}_{size}_uniform"
    w, h = map(int, size.split("x"))
    spp = median(label, 2) / (w * h)
    ratio = ns_per_sample(label) / ns_per_sample(uniform)
    if kind == "uniform":
        print(f"| {backend} | {size} | uniform 128 | auto | | | {spp:.1f} | {median(label, 1):.3f} | {median(label, 0):.3f} | {ns_per_sample(label):.2f} | 1.00 |")
    elif backend == "cpu":
        print(f"| cpu | {size} | {parts[3]} | | | | {spp:.1f} | {median(label, 1):.3f} | {median(label, 0):.3f} | {ns_per_sample(label):.2f} | {ratio:.2f} |")
    else:
        threshold, integrator, ahead, chunk = parts[3], parts[4], parts[5][5:], parts[6][5:]
        print(f"| gpu | {size} | {threshold} | {integrator} | {ahead} | {chunk} | {spp:.1f} | {median(label, 1):.3f} | {median(label, 0):.3f} | {ns_per_sample(label):.2f} | {ratio:.2f} |")
# The same bytes across every GPU variant of a size and threshold, and the CPU's.
groups = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*_adaptive_*.pfm"))):
    name = os.path.basename(path)
    if not re.search(r"_adaptive_[0-9.]+(_[a-z]+_ahead[0-9]+_chunk[0-9]+)?\.pfm$", name): continue  # not an AOV
    parts = name[:-4].split("_")
    groups[(parts[1], parts[3])].append(path)
for (size, threshold), paths in sorted(groups.items()):
    same = all(filecmp.cmp(paths[0], p, shallow=False) for p in paths[1:])
    print(f"\n{size} at {threshold}: {len(paths)} images, {'the same bytes' if same else 'DIFFERENT BYTES'}")
PY
