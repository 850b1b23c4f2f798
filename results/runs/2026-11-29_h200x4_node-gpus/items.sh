#!/usr/bin/env bash
# The 4-GPU host, one call: where four GPUs of one process lose 20% of their
# GPU-seconds (1200x675, 4096 spp, spheres.yaml, exact math). Variants of the
# launch policy and of the dealer's item size on 4 GPUs, one GPU dealt items
# of four GPUs' size, and four processes at once each rendering a quarter of
# the rows (--crop): the same items, no process shared. Interleaved, REPEATS times.
set -uo pipefail
source "$(dirname "$0")/build.sh"
quarters=("0,1200,0,169" "0,1200,169,338" "0,1200,338,507" "0,1200,507,675")
for repeat in $(seq ${REPEATS:-2}); do
  run g4 -- --gpus 0,1,2,3
  run g4_grid1 FARMRT_CUDA_GRID_DIVISOR=1 -- --gpus 0,1,2,3
  run g4_bands2_grid1 FARMRT_CUDA_BANDS=2 FARMRT_CUDA_GRID_DIVISOR=1 -- --gpus 0,1,2,3
  run g4_bands4 FARMRT_CUDA_BANDS=4 -- --gpus 0,1,2,3
  run g4_divisor1 FARMRT_FARM_BAND_DIVISOR=1 -- --gpus 0,1,2,3
  run g4_notail FARMRT_FARM_TAIL=0 -- --gpus 0,1,2,3
  run g1 -- --gpus 0
  run g1_divisor15 FARMRT_FARM_BAND_DIVISOR=15 -- --gpus 0
  for q in 0 1 2 3; do
    env "$f" "${frame[@]}" --gpus $q --crop ${quarters[$q]} -o /tmp/q$q.pfm --stats "$out/runs/quarters${q}_$repeat.json" &
  done
  wait
done
echo "runs done at $((SECONDS - s)) s"
python3 - "$out" <<'PY' | tee "$out/summary.md"
import glob, json, os, re, statistics as st, sys
out = sys.argv[1]
groups = {}
for p in glob.glob(out + '/runs/*.json'):
    name, repeat = os.path.basename(p)[:-5].rsplit('_', 1)
    d = json.load(open(p))
    devs = [x for x in d.get('devices', []) if x.get('launches') is not None]
    row = dict(render=d['render_seconds'], busy=sum(x['busy_seconds'] for x in devs), items=sum(x['items'] for x in devs),
               launches=sum(x['launches'] for x in devs))
    clock = p[:-5] + '.clock'
    if os.path.exists(clock):
        start, end = map(float, open(clock).read().split())
        probe = re.findall(r'exit-probe ([0-9.]+) ([0-9.]+)', open(p[:-5] + '.err').read())
        mtime = os.stat(p).st_mtime
        row.update(wall=end - start, after=end - mtime)
        if probe:
            job, release = map(float, probe[0])
            row.update(teardown=job - mtime, release=release - job, exit=end - release)
    if name.startswith('quarters'):
        groups.setdefault(('quarters', repeat), []).append(row)
    else:
        groups.setdefault((name, 'all'), []).append(row)
rows = {}
for (name, repeat), g in groups.items():
    if name == 'quarters':  # four processes at once: the sum of their GPU-seconds, the longest render
        rows.setdefault('quarters', []).append(dict(render=max(x['render'] for x in g), busy=sum(x['busy'] for x in g),
                                                    items=sum(x['items'] for x in g), launches=sum(x['launches'] for x in g)))
    else:
        rows[name] = g
print('| variant | runs | render (s) | GPU busy sum (s) | items | launches | after the report (s) | renderers ended | contexts released | exit |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for name in sorted(rows):
    g = rows[name]
    m = lambda k: st.median(x[k] for x in g) if all(k in x for x in g) else float('nan')
    print('| %s | %d | %.3f | %.3f | %.0f | %.0f | %.2f | %.3f | %.3f | %.3f |' % (name, len(g), m('render'), m('busy'), m('items'), m('launches'), m('after'), m('teardown'), m('release'), m('exit')))
PY
