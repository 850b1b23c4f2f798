#!/usr/bin/env bash
# The 4-GPU host, one call: is four GPUs' loss in one process a matter of
# how many GPUs share the process, of which GPUs (the host's topology), or of
# bands overlapping on a GPU? And the end of the command: the GPUs' contexts
# left to the runtime at exit, released at once (FARMRT_EXIT_EXPERIMENT=release),
# or the process ended without releasing them (quick). 1200x675, 4096 spp,
# spheres.yaml, exact math; interleaved, REPEATS times. Then the GPU suite.
set -uo pipefail
source "$(dirname "$0")/build.sh"
nvidia-smi topo -m >"$out/topology.txt" 2>&1; lscpu | grep -i numa >>"$out/topology.txt"
at_once() {  # NAME ENV... -- CROP:GPUS...: processes at once, each its rows on its GPUs
  local name=$1; shift
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
  local part=0
  for job in "$@"; do
    env "${env[@]}" "$f" "${frame[@]}" --crop ${job%%:*} --gpus ${job##*:} -o /tmp/part$part.pfm \
      --stats "$out/runs/${name}@${part}_$repeat.json" &
    part=$((part + 1))
  done
  wait
}
quarters=("0,1200,0,169:0" "0,1200,169,338:1" "0,1200,338,507:2" "0,1200,507,675:3")
halves=("0,1200,0,338:0,1" "0,1200,338,675:2,3")
one=(FARMRT_CUDA_BANDS=1 FARMRT_CUDA_GRID_DIVISOR=1)
for repeat in $(seq ${REPEATS:-2}); do
  run g1 -- --gpus 0
  run g2_01 -- --gpus 0,1
  run g2_02 -- --gpus 0,2

  run g4 -- --gpus 0,1,2,3
  at_once quarters -- "${quarters[@]}"
  at_once halves -- "${halves[@]}"
  run g1_oneband "${one[@]}" -- --gpus 0
  run g4_oneband "${one[@]}" -- --gpus 0,1,2,3
  at_once quarters_oneband "${one[@]}" -- "${quarters[@]}"
  run g4_release FARMRT_EXIT_EXPERIMENT=release -- --gpus 0,1,2,3
  run g4_quick FARMRT_EXIT_EXPERIMENT=quick -- --gpus 0,1,2,3

done
echo "runs done at $((SECONDS - s)) s"
python3 - "$out" <<'PY' | tee "$out/summary.md"
import glob, json, os, re, statistics as st, sys
out = sys.argv[1]
groups, together = {}, {}
for p in glob.glob(out + '/runs/*.json'):
    name, repeat = os.path.basename(p)[:-5].rsplit('_', 1)
    d = json.load(open(p))
    devs = [x for x in d.get('devices', []) if x.get('launches') is not None]
    row = dict(render=d['render_seconds'], busy=sum(x['busy_seconds'] for x in devs), items=sum(x['items'] for x in devs))
    clock = p[:-5] + '.clock'
    if os.path.exists(clock):
        start, end = map(float, open(clock).read().split())
        probe = re.findall(r'exit-probe ([0-9.]+) ([0-9.]+)', open(p[:-5] + '.err').read())
        mtime = os.stat(p).st_mtime
        row.update(wall=end - start, after=end - mtime)
        if probe:
            job, release = map(float, probe[0])
            row.update(teardown=job - mtime, release=release - job, exit=end - release)
    if '@' in name:
        together.setdefault((name.split('@')[0], repeat), []).append(row)
    else:
        groups.setdefault(name, []).append(row)
for (name, repeat), g in together.items():
    groups.setdefault(name + ' (processes at once)', []).append(dict(
        render=max(x['render'] for x in g), busy=sum(x['busy'] for x in g), items=sum(x['items'] for x in g)))
print('| run | runs | render (s) | GPU busy sum (s) | items | wall (s) | after the report (s) | renderers ended | release | exit |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for name in sorted(groups):
    g = groups[name]
    m = lambda k: st.median(x[k] for x in g) if all(k in x for x in g) else float('nan')
    print('| %s | %d | %.3f | %.3f | %.0f | %.2f | %.2f | %.3f | %.3f | %.3f |' % (name, len(g), m('render'), m('busy'), m('items'), m('wall'), m('after'), m('teardown'), m('release'), m('exit')))
PY
cat "$out/topology.txt"
left=$((560 - (SECONDS - s)))
echo "suite with ${left} s left"
FARMRT_GPU_STEPS=gpu LOG_DIR=$out/logs timeout -k 5 $left scripts/gpu_build_and_test.sh "$build" 2>&1 | tail -25
