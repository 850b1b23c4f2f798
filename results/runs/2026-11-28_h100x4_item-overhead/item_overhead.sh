#!/usr/bin/env bash
# Does a GPU among four take longer for the same work because its items are smaller, or because four run at once?
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
    -DFARMRT_BUILD_TESTS=OFF "${deps[@]}" > $out/configure.log 2>&1
s=$SECONDS; ninja -C build-gpu -j $(nproc) farmrt > $out/build.log 2>&1; echo "build rc=$? $((SECONDS-s)) s"
b=build-gpu/farmrt
nvidia-smi -L > $out/gpus.txt
nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw,temperature.gpu,utilization.gpu --format=csv,noheader,nounits -lms 100 > $out/smi.csv 2>/dev/null &
smi=$!
sleep 1
for rep in 1 2; do
  for size in 1200x675:4096 3840x2160:1024; do
    W=${size%%x*}; rest=${size#*x}; H=${rest%%:*}; S=${size##*:}
    for cfg in g1 g1small g4; do
      env=(); gpus=0
      [ $cfg = g1small ] && env=(FARMRT_FARM_BAND_DIVISOR=15)
      [ $cfg = g4 ] && gpus=0,1,2,3
      name=${cfg}_${W}_${rep}
      echo "$(date +%s.%N) start $name" >> $out/marks.txt
      env "${env[@]}" $b configs/spheres.yaml --width $W --height $H --spp $S --quiet --backend cuda --gpus $gpus -o /tmp/$cfg.pfm --stats $out/$name.json
      echo "$(date +%s.%N) end $name" >> $out/marks.txt
    done
  done
done
kill $smi
python3 - "$out" <<'PY'
import json, sys, datetime, statistics as st, os
out = sys.argv[1]
rows = []
for line in open(f"{out}/smi.csv"):
    p = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        rows.append((t, int(p[1]), float(p[2]), float(p[3]), float(p[4]), float(p[5])))
    except Exception:
        pass
marks = {}
for line in open(f"{out}/marks.txt"):
    t, kind, name = line.split()
    marks.setdefault(name, {})[kind] = float(t)
print("| run | render s | items per device | busy s per device | SM MHz per busy GPU (median) | W per busy GPU | temp C |")
for name, m in marks.items():
    d = json.load(open(f"{out}/{name}.json"))
    devs = d.get("devices", [])
    items = [x.get("items", x.get("bands", 0)) for x in devs]
    busy = [round(x.get("busy_seconds", 0), 3) for x in devs]
    gpus = sorted({r[1] for r in rows})
    clocks, watts, temps = [], [], []
    for g in gpus:
        sel = [r for r in rows if r[1] == g and m["start"] + 0.5 < r[0] < m["end"] and r[5] > 50]
        if sel:
            clocks.append(int(st.median(r[2] for r in sel))); watts.append(int(st.median(r[3] for r in sel))); temps.append(int(max(r[4] for r in sel)))
    print(f"| {name} | {d['render_seconds']:.3f} | {items} | {busy} (sum {sum(busy):.3f}) | {clocks} | {watts} | {temps} |")
json.dump(json.load(open(f"{out}/g4_1200_1.json")).get("devices", []), open(f"{out}/devices_example.json", "w"), indent=1)
PY
