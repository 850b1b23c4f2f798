#!/bin/bash
# Interleaved one-thread A/B runs of farmrt binaries (session 7, dev VM):
# every variant back to back in each repeat; prints
# "scene variant repeat samples_per_second" and reports on stderr any image
# that differs from the first variant's.
#   ab.sh REPEATS NAME=BINARY:LEVEL...   (env SCENES W H SPP)
configs=$(cd "$(dirname "$0")/../../configs" && pwd)
reps=$1; shift
for scene in ${SCENES:-spheres many_spheres}; do
for r in $(seq $reps); do
  for v in "$@"; do
    name=${v%%=*}; rest=${v#*=}; bin=${rest%%:*}; level=${rest#*:}
    $bin "$configs/$scene.yaml" --width ${W:-300} --height ${H:-169} --spp ${SPP:-16} --threads 1 --backend cpu --simd $level -o ${TMPDIR:-/tmp}/ab_o_$name.pfm --stats ${TMPDIR:-/tmp}/ab_s.json --quiet
    echo "$scene $name $r $(python3 -c "import json;print(json.load(open('${TMPDIR:-/tmp}/ab_s.json'))['samples_per_second'])")"
  done
  first=""; for v in "$@"; do name=${v%%=*}; [ -z "$first" ] && first=$name && continue; cmp -s ${TMPDIR:-/tmp}/ab_o_$first.pfm ${TMPDIR:-/tmp}/ab_o_$name.pfm || echo "DIFFER $scene $first $name" >&2; done
done; done
