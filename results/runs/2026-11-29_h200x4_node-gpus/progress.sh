#!/usr/bin/env bash
# The 4-GPU host, one call: a GPU's progress counted from events the host
# polls (the default) against a host function queued after each launch
# (FARMRT_CUDA_PROGRESS=callbacks), on 1 and 4 GPUs of one process, 4 GPUs
# beside the CPU, and 4 GPUs with per-pixel items (no summing kernel);
# interleaved, REPEATS times. With the GPUs' contexts released at once at the
# end (the "after the report" column).
set -uo pipefail
source "$(dirname "$0")/build.sh"
# The progress line still reaches the end.
"$f" configs/spheres.yaml --width 1200 --height 675 --spp 1024 --backend cuda --gpus 0,1,2,3 -o /tmp/p.pfm 2>"$out/progress_line.txt"
tr '\r' '\n' <"$out/progress_line.txt" | tail -4
run() {  # NAME VARIANT SIZE SPP ARGS...
  local name=$1 variant=$2 size=$3 spp=$4; shift 4
  local env=()
  case $variant in callbacks) env=(FARMRT_CUDA_PROGRESS=callbacks) ;; pixels) env=(FARMRT_CUDA_ITEMS=pixels) ;; esac
  local tag=${size}_${spp}_${name}_${variant}_$repeat
  local start end
  start=$(date +%s.%N)
  env "${env[@]}" "$f" configs/spheres.yaml --width ${size%x*} --height ${size#*x} --spp $spp --quiet "$@" \
    -o /tmp/p_$size.pfm --stats "$out/runs/$tag.json" 2>"$out/runs/$tag.err"
  end=$(date +%s.%N)
  echo "$start $end" >"$out/runs/$tag.clock"
  if [ -f /tmp/ref_$size.pfm ]; then cmp -s /tmp/ref_$size.pfm /tmp/p_$size.pfm || echo "$tag differs"; else cp /tmp/p_$size.pfm /tmp/ref_$size.pfm; fi
}
for repeat in $(seq ${REPEATS:-3}); do
  for variant in events callbacks; do
    run g1 $variant 1200x675 4096 --backend cuda --gpus 0
    run g4 $variant 1200x675 4096 --backend cuda --gpus 0,1,2,3
    run g4cpu $variant 1200x675 4096 --backend auto --gpus 0,1,2,3
    run g4 $variant 3840x2160 1024 --backend cuda --gpus 0,1,2,3
  done
  run g4 pixels 1200x675 4096 --backend cuda --gpus 0,1,2,3
  [ $repeat = 1 ] && for variant in events callbacks; do run g1 $variant 3840x2160 1024 --backend cuda --gpus 0; done
done
echo "runs done at $((SECONDS - s)) s"
python3 - "$out" <<'PY' | tee "$out/summary.md"
import glob, json, os, statistics as st, sys
out = sys.argv[1]
groups = {}
for p in glob.glob(out + '/runs/*.json'):
    size, spp, name, variant, repeat = os.path.basename(p)[:-5].split('_')
    d = json.load(open(p))
    start, end = map(float, open(p[:-5] + '.clock').read().split())
    devs = d.get('devices', [])
    groups.setdefault((size, spp, name, variant), []).append(dict(
        render=d['render_seconds'], wall=end - start, after=end - os.stat(p).st_mtime,
        setup=d['per_rank'][0]['setup_seconds'], backend=d['seconds'].get('backend_setup', 0),
        busy=sum(x.get('busy_seconds', 0) for x in devs if x.get('launches') is not None),
        items=sum(x.get('items', 0) for x in devs if x.get('launches') is not None)))
print('| size | spp | config | progress | runs | render (s) | GPU busy sum (s) | GPU items | set-up (s) | backend set-up (s) | after the report (s) | wall (s) |')
print('|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for k in sorted(groups):
    g = groups[k]; m = lambda key: st.median(x[key] for x in g)
    print('| %s | %s | %s | %s | %d | %.3f | %.3f | %.0f | %.2f | %.3f | %.2f | %.2f |' % (k + (len(g), m('render'), m('busy'), m('items'), m('setup'), m('backend'), m('after'), m('wall'))))
PY
