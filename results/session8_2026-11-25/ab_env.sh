#!/bin/bash
# Interleaved A/B runs of one farmrt binary under different --simd levels and
# environments: every variant back to back in each repeat; prints
# "scene variant repeat samples_per_second", and on stderr any image that
# differs from the first variant's.
#   ab_env.sh FARMRT REPEATS 'NAME LEVEL [VAR=VALUE ...]' ...   (env SCENES W H SPP THREADS)
configs=$(cd "$(dirname "$0")/../../configs" && pwd)
bin=$1; reps=$2; shift 2
variants=("$@")
tmp=${TMPDIR:-/tmp}
for r in $(seq $reps); do
for scene in ${SCENES:-spheres many_spheres}; do
  first=""
  for v in "${variants[@]}"; do
    read -r name level settings <<< "$v"
    rm -f $tmp/abe_s.json $tmp/abe_$name.pfm
    env $settings $bin "$configs/$scene.yaml" --width ${W:-300} --height ${H:-169} --spp ${SPP:-16} --threads ${THREADS:-1} \
        --backend cpu --simd $level -o $tmp/abe_$name.pfm --stats $tmp/abe_s.json --quiet
    echo "$scene $name $r $(python3 -c "import json;import os;print(json.load(open('$tmp/abe_s.json'))['samples_per_second'] if os.path.exists('$tmp/abe_s.json') else 'NA')")"
    if [ -z "$first" ]; then first=$name; else cmp -s $tmp/abe_$first.pfm $tmp/abe_$name.pfm || echo "DIFFER $scene $first $name" >&2; fi
  done
done; done
