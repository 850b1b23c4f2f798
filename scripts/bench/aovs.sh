#!/usr/bin/env bash
# What AOVs cost: the same frame rendered with and without all four
# (--aov albedo,normal,depth,samples, written as PFM files beside a PFM), per
# backend. AOVs are made on rank 0 as the frame is written, so they show in
# the write phase of --stats; the wall time is what the user waits for.
# Runs alternate (with, without) to share the machine's drift; medians of RUNS.
# Prints a markdown table.
#
#   scripts/bench/aovs.sh FARMRT OUT_DIR [RUNS]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
farmrt=${1:?usage: bench/aovs.sh FARMRT OUT_DIR [RUNS]}
out=${2:?usage: bench/aovs.sh FARMRT OUT_DIR [RUNS]}
runs=${3:-5}
mkdir -p "$out"
backends=(cpu)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then backends+=(cuda); fi
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
stat() { python3 -c "import json,sys; s=json.load(open('$1')); k='$2'; print(s['seconds'][k] if k in s['seconds'] else s[k])"; }

echo "| scene | backend | spp | AOVs | render (s) | write (s) | wall (s) |"
echo "|---|---|---:|---|---:|---:|---:|"
for case in "spheres 64" "cornell 64"; do
  read -r scene spp <<<"$case"
  for backend in "${backends[@]}"; do
    declare -A render=() write=() wall=()
    for r in $(seq "$runs"); do
      for aovs in none all; do
        extra=()
        [ "$aovs" = all ] && extra=(--aov albedo,normal,depth,samples)
        "$farmrt" "$root/configs/$scene.yaml" --width 1920 --height 1080 --spp "$spp" --backend "$backend" -q \
          -o "$out/$scene.pfm" --stats "$out/stats.json" "${extra[@]}" || { echo "failed: $scene $backend" >&2; exit 1; }
        render[$aovs]+="$(stat "$out/stats.json" render) "
        write[$aovs]+="$(stat "$out/stats.json" write) "
        wall[$aovs]+="$(stat "$out/stats.json" total) "
      done
    done
    for aovs in none all; do
      printf '| %s | %s | %s | %s | %.3f | %.3f | %.3f |\n' "$scene" "$backend" "$spp" "$aovs" \
        "$(tr ' ' '\n' <<<"${render[$aovs]}" | grep . | median)" \
        "$(tr ' ' '\n' <<<"${write[$aovs]}" | grep . | median)" \
        "$(tr ' ' '\n' <<<"${wall[$aovs]}" | grep . | median)"
    done
    unset render write wall
  done
done
