#!/usr/bin/env bash
# A million-triangle imported model lit by an environment map and a lamp
# (scripts/generate/env_model.sh). Each farmrt given renders it at 960x540
# on the GPU (--backend cuda), exact and fast math, under each GPU
# integrator named (FARMRT_CUDA_INTEGRATOR; a build without the variable
# runs its only one), interleaved, REPEAT times; prints the render
# phase (--stats) and the whole command, medians, and whether the exact
# images of the builds are the same bytes.
#
#   scripts/bench/env_model.sh OUT_DIR REPEAT SPP LABEL=FARMRT[:INTEGRATOR] ...
#   e.g. scripts/bench/env_model.sh /tmp/em 3 256 now=build/farmrt:split now=build/farmrt:megakernel
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: bench/env_model.sh OUT_DIR REPEAT SPP LABEL=FARMRT[:INTEGRATOR] ...}
repeat=${2:?usage}
spp=${3:?usage}
shift 3
mkdir -p "$out"
"$root/scripts/generate/env_model.sh" "$out"
times=$out/times.txt
: > "$times"
for ((rep = 0; rep < repeat; ++rep)); do
  for math in exact fast; do
    for c in "$@"; do
      label=${c%%=*}; rest=${c#*=}; bin=${rest%%:*}; integrator=auto
      [[ $rest == *:* ]] && integrator=${rest#*:}
      name=${label}_${integrator}_$math
      start=$(date +%s.%N)
      FARMRT_CUDA_INTEGRATOR=$integrator "$bin" "$out/env_model.yaml" --spp "$spp" --backend cuda --gpu-math "$math" \
        --quiet -o "$out/$name.pfm" --stats "$out/$name.json" > "$out/$name.log" 2>&1
      rc=$?
      end=$(date +%s.%N)
      render=$(python3 -c "import json; print(json.load(open('$out/$name.json'))['render_seconds'])" 2>/dev/null || echo nan)
      echo "$label $integrator $math $rc $render $(awk "BEGIN {print $end - $start}")" >> "$times"
    done
  done
done
python3 - "$times" "$spp" <<'PY'
import collections, statistics, sys
spp = int(sys.argv[2]); pixels = 960 * 540
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, integrator, math, rc, render, wall = line.split()
    runs[(label, integrator, math)].append((rc, float(render), float(wall)))
print("| build | integrator | math | M samples/s (render) | render s | whole command s | runs failed |")
print("|---|---|---|---:|---:|---:|---:|")
for (label, integrator, math), r in runs.items():
    ok = [x for x in r if x[0] == "0"]
    if not ok:
        print(f"| {label} | {integrator} | {math} | - | - | - | {len(r)} |")
        continue
    render = statistics.median(x[1] for x in ok); wall = statistics.median(x[2] for x in ok)
    print(f"| {label} | {integrator} | {math} | {pixels * spp / render / 1e6:.1f} | {render:.3f} | {wall:.2f} | {len(r) - len(ok)} |")
PY
first=
for f in "$out"/*_exact.pfm; do
  if [ -z "$first" ]; then first=$f; elif ! cmp -s "$first" "$f"; then echo "exact images differ: $(basename "$first") $(basename "$f")"; fi
done
