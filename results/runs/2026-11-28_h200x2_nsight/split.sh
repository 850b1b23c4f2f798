#!/usr/bin/env bash
# Nsight Compute, full set with source lines: the spheres megakernel (exact), and one
# launch each of the split kernels on models.yaml; the top source lines by stall samples.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
s=$SECONDS
mkdir -p /tmp/tb; OUT=/tmp/tb TARGETS="farmrt" bash .deps/chain.sh build > $out/build_summary.txt 2>&1; echo "built at $((SECONDS-s)) s"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
CUDA_VISIBLE_DEVICES=0 timeout -k 3 200 ncu --clock-control none --set full --import-source yes -k regex:'path_kernel' --launch-skip 1 --launch-count 1 \
  -f -o /tmp/spheres build-gpu/farmrt configs/spheres.yaml --width 1200 --height 675 --spp 16 --backend cuda --quiet -o /tmp/n1.pfm > $out/ncu_log.txt 2>&1 &
CUDA_VISIBLE_DEVICES=1 timeout -k 3 200 ncu --clock-control none --set full --import-source yes -k regex:'wavefront' --launch-skip 8 --launch-count 6 \
  -f -o /tmp/models build-gpu/farmrt configs/models.yaml --spp 16 --backend cuda --quiet -o /tmp/n2.pfm >> $out/ncu_log.txt 2>&1 &
wait; echo "profiled at $((SECONDS-s)) s"
for r in spheres models; do
  ncu -i /tmp/$r.ncu-rep --print-details all > $out/ncu_${r}_details.txt 2>&1
  ncu -i /tmp/$r.ncu-rep --page source --csv --print-source cuda > /tmp/${r}_source.csv 2>&1
  python3 - /tmp/${r}_source.csv > $out/ncu_${r}_lines.txt <<'PY'
import csv, sys, io
text = open(sys.argv[1], errors='replace').read()
# One CSV table per kernel, each after a line naming it; keep the lines with the most stall samples.
chunks = text.split('\n"#"') if '\n"#"' in text else [text]
rows = list(csv.reader(io.StringIO(text)))
header = None; table = []
for row in rows:
    if row and row[0] in ('#', 'Line', '# Address', 'Address') or (row and 'Source' in row and len(row) > 5):
        header = row; continue
    if header and len(row) == len(header): table.append(dict(zip(header, row)))
if not header: print(text[:3000]); sys.exit()
print('columns:', header)
key = next((h for h in header if 'Warp Stall Sampling (All' in h), None) or next((h for h in header if 'Sampling' in h), header[-1])
def num(x):
    try: return float(x.replace(',', ''))
    except: return 0.0
total = sum(num(r.get(key, '0')) for r in table) or 1
for r in sorted(table, key=lambda r: -num(r.get(key, '0')))[:60]:
    print('%6.2f%% | %s | %s' % (100 * num(r.get(key, '0')) / total, r.get('#', r.get('Line', '')), ' | '.join(r.get(h, '') for h in header[1:4])[:300]))
PY
done
cp /tmp/spheres_source.csv $out/; ls -la $out
