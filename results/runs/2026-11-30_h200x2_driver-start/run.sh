#!/usr/bin/env bash
# The GPU driver started while the scene is read, against after it, on GPU 0
# of the 2 x H200 host: builds farmrt_base (12d07ce's tree) and
# farmrt_driver (the change) carried in .deps/prebuilt. Short renders, where
# set-up is most of the command: spheres.yaml 1200x675 at 64 spp,
# models.yaml at 64 spp, the million triangles (scripts/generate/env_model.sh)
# at 16 spp; the order A B B A, REPEATS times. Each line: build, scene, exit,
# the whole command (s), --stats' seconds, the image's bytes against the
# scene's first image.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1 || { cat /tmp/scene.log; exit 1; }
for rep in $(seq ${REPEATS:-3}); do for v in base driver driver base; do for scene in spheres models env; do
  case $scene in
    spheres) args=(configs/spheres.yaml --width 1200 --height 675 --spp 64) ;;
    models) args=(configs/models.yaml --spp 64) ;;
    env) args=(/tmp/env_model.yaml --spp 16) ;;
  esac
  t0=$(date +%s.%N)
  $root/.deps/prebuilt/farmrt_$v "${args[@]}" --backend cuda --gpus 0 --quiet -o /tmp/$scene.pfm --stats /tmp/s.json >/dev/null 2>&1
  rc=$?; t1=$(date +%s.%N)
  [ -f /tmp/ref_$scene.pfm ] || cp /tmp/$scene.pfm /tmp/ref_$scene.pfm
  cmp -s /tmp/$scene.pfm /tmp/ref_$scene.pfm && same=same || same=DIFFER
  echo "$v $scene $rc $(awk "BEGIN {print $t1 - $t0}") $(python3 -c "import json; s = json.load(open('/tmp/s.json'))['seconds']; print(' '.join('%s=%.3f' % (k, v) for k, v in s.items()))") $same"
done; done; done | tee "$out/driver.txt"
python3 - "$out/driver.txt" <<'PY' | tee "$out/driver_medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if p[2] != "0": continue
    d = {"whole": float(p[3])}
    d.update({k: float(v) for k, v in (x.split("=") for x in p[4:-1])})
    d["same"] = p[-1] == "same"
    r[(p[1], p[0])].append(d)
for (scene, v) in sorted(r):
    x = r[(scene, v)]
    keys = [k for k in x[0] if k != "same"]
    print("%-8s %-7s %s  same %s  n %d" % (scene, v, " ".join("%s %.3f" % (k, statistics.median(e[k] for e in x)) for k in keys),
          all(e["same"] for e in x), len(x)))
PY
