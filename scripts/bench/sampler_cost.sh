#!/usr/bin/env bash
# The cost per sample of the Sobol sampler against the independent one, and
# of the light tree against choosing lights by power: the same scene and
# settings, runs interleaved, medians of REPEATS, render phase (--stats
# render_seconds) and whole-command wall time.
#
#   scripts/bench/sampler_cost.sh FARMRT BACKEND [REPEATS] [SCENE:ARGS ...]
#
# BACKEND: cpu or cuda (--gpu-math exact). Default scenes: the book's final
# scene (configs/spheres.yaml) and the Cornell box (configs/cornell.yaml).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
farmrt=${1:?usage: sampler_cost.sh FARMRT BACKEND [REPEATS] [SCENE:ARGS ...]}
backend=${2:?usage: sampler_cost.sh FARMRT BACKEND [REPEATS] [SCENE:ARGS ...]}
repeats=${3:-5}
shift 3 || shift $#
scenes=("$@")
if [ ${#scenes[@]} -eq 0 ]; then
  if [ "$backend" = cuda ]; then
    scenes=("configs/spheres.yaml:--width 1200 --height 675 --spp 1024" "configs/cornell.yaml:--width 600 --height 600 --spp 1024")
  else
    scenes=("configs/spheres.yaml:--width 400 --height 225 --spp 64" "configs/cornell.yaml:--width 300 --height 300 --spp 256")
  fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"
variants=("sampling.sampler=independent" "sampling.sampler=sobol" "sampling.light_sampler=power" "sampling.light_sampler=tree")
echo "| scene | variant | render s (median of $repeats) | wall s | render / first variant of its pair |"
echo "|---|---|---:|---:|---:|"
for entry in "${scenes[@]}"; do
  scene=${entry%%:*}
  args=${entry#*:}
  declare -A render=() wall=()
  for ((r = 0; r < repeats; r++)); do
    for v in "${variants[@]}"; do
      start=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$farmrt" "$scene" $args --backend "$backend" -q --set "$v" -o "$out/image.pfm" --stats "$out/stats.json" >/dev/null
      end=$(date +%s.%N)
      render[$v]+="$(python3 -c "import json; print(json.load(open('$out/stats.json'))['render_seconds'])") "
      wall[$v]+="$(python3 -c "print($end - $start)") "
    done
  done
  median() { python3 -c "import statistics, sys; print('%.3f' % statistics.median(map(float, sys.argv[1:])))" $1; }
  for i in 0 2; do
    a=${variants[$i]} b=${variants[$((i + 1))]}
    ra=$(median "${render[$a]}") rb=$(median "${render[$b]}")
    echo "| $scene $args | $a | $ra | $(median "${wall[$a]}") | 1.000 |"
    echo "| $scene $args | $b | $rb | $(median "${wall[$b]}") | $(python3 -c "print('%.3f' % ($rb / $ra))") |"
  done
  unset render wall
done
