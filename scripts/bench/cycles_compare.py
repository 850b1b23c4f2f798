#!/usr/bin/env python3
"""Time to equal error, farmrt against Blender Cycles (CPU) on the same
machine with the same threads: the Cornell box (configs/cornell.yaml) and the
sunlit interior (configs/interior.yaml, adaptive sampling off), each built in
Blender by scripts/bench/cycles_scene.py from the same scene file.

Each renderer's error is the RMSE against its own converged image (REF_SPP
samples), so that the small differences between the two renderers' materials
do not count as noise. Runs are interleaved (farmrt with the Sobol sampler,
farmrt with the independent sampler, Cycles; each spp; REPEATS rounds with
other seeds) and medians are taken. Times: the render phase (farmrt --stats
render_seconds; Cycles' "Time:" less saving) and the whole command's wall
time. farmrt's time to reach the error Cycles reaches at S spp is
interpolated log-log between farmrt's own runs.

    scripts/bench/cycles_compare.py FARMRT OUT_DIR [--threads N] [--repeats R] [--reference-spp S]

Prints markdown; keeps images and a JSON of every run under OUT_DIR.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import image_error  # noqa: E402

SPPS = [4, 16, 64, 256]
SCENES = {
    "cornell": ("configs/cornell.yaml", 300, 300, {}),
    "interior": ("configs/interior.yaml", 320, 180, {"noise_threshold": 0}),
}


def scene_file(out, name):
    import yaml  # here, so that many_lights.py can borrow time_at_error without PyYAML
    source, width, height, sampling = SCENES[name]
    with open(os.path.join(ROOT, source)) as f:
        spec = yaml.safe_load(f)
    spec["image"].update({"width": width, "height": height, "output": name + ".pfm"})
    spec["image"].pop("aovs", None)
    spec["sampling"].update(sampling)
    path = os.path.join(out, name + ".yaml")
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)  # JSON is YAML, and Blender's Python may lack PyYAML
    return path


def run_farmrt(farmrt, scene, out_image, spp, threads, seed, sampler):
    stats = out_image + ".json"
    start = time.monotonic()
    subprocess.run([farmrt, scene, "-q", "-o", out_image, "--spp", str(spp), "--threads", str(threads),
                    "--backend", "cpu", "--set", "sampling.seed=%d" % seed, "--set", "sampling.sampler=" + sampler,
                    "--stats", stats], check=True)
    wall = time.monotonic() - start
    with open(stats) as f:
        return wall, json.load(f)["render_seconds"]


def run_cycles(scene, out_image, spp, threads, seed):
    start = time.monotonic()
    result = subprocess.run(["blender", "-b", "--factory-startup", "-P", os.path.join(HERE, "cycles_scene.py"), "--",
                             scene, out_image[:-4] + ".exr", str(spp), str(threads), str(seed)],
                            check=True, capture_output=True, text=True)
    wall = time.monotonic() - start
    m = re.search(r"^ Time: (\d+):(\d+\.\d+) \(Saving: (\d+):(\d+\.\d+)\)", result.stdout + result.stderr, re.M)
    render = int(m.group(1)) * 60 + float(m.group(2)) - (int(m.group(3)) * 60 + float(m.group(4)))
    return wall, render


def error(image, reference):
    a, _, _ = image_error.read_pfm(image)
    b, _, _ = image_error.read_pfm(reference)
    return image_error.rmse(a, b)


def slope(points):  # least squares of log(rmse) on log(spp)
    xs = [math.log(p[0]) for p in points]
    ys = [math.log(p[1]) for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def time_at_error(rows, target, key):
    """Time (rows' `key`) at which RMSE reaches target, log-log between the
    two runs around it (or along the nearest two when outside them)."""
    rows = sorted(rows, key=lambda r: r["spp"])
    pairs = list(zip(rows, rows[1:]))
    chosen = pairs[-1]
    for a, b in pairs:
        if a["rmse"] >= target >= b["rmse"]:
            chosen = (a, b)
            break
    else:
        if target > rows[0]["rmse"]:
            chosen = pairs[0]
    a, b = chosen
    t = (math.log(target) - math.log(a["rmse"])) / (math.log(b["rmse"]) - math.log(a["rmse"]))
    return math.exp(math.log(a[key]) + t * (math.log(b[key]) - math.log(a[key])))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("farmrt")
    parser.add_argument("out")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-spp", type=int, default=4096)
    parser.add_argument("--scenes", default="cornell,interior")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    renderers = ["farmrt sobol", "farmrt independent", "cycles"]
    report = {}
    for name in args.scenes.split(","):
        scene = scene_file(args.out, name)
        references = {}
        for renderer in renderers:
            path = os.path.join(args.out, "%s_%s_reference.pfm" % (name, renderer.replace(" ", "_")))
            if not os.path.exists(path):
                if renderer == "cycles":
                    run_cycles(scene, path, args.reference_spp, args.threads, 1000)
                else:
                    run_farmrt(args.farmrt, scene, path, args.reference_spp, args.threads, 1000, renderer.split()[1])
            references[renderer] = path
        runs = []
        for repeat in range(args.repeats):
            for spp in SPPS:
                for renderer in renderers:
                    image = os.path.join(args.out, "%s_%s_%d_%d.pfm" % (name, renderer.replace(" ", "_"), spp, repeat))
                    if renderer == "cycles":
                        wall, render = run_cycles(scene, image, spp, args.threads, repeat)
                    else:
                        wall, render = run_farmrt(args.farmrt, scene, image, spp, args.threads, repeat,
                                                  renderer.split()[1])
                    runs.append({"renderer": renderer, "spp": spp, "repeat": repeat, "wall": wall, "render": render,
                                 "rmse": error(image, references[renderer])})
        medians = {}
        for renderer in renderers:
            medians[renderer] = []
            for spp in SPPS:
                mine = [r for r in runs if r["renderer"] == renderer and r["spp"] == spp]
                medians[renderer].append({"spp": spp, **{k: statistics.median(r[k] for r in mine)
                                                         for k in ("wall", "render", "rmse")}})
        report[name] = {"runs": runs, "medians": medians}
        print("## %s (%s), %d threads, medians of %d\n" % (name, SCENES[name][0], args.threads, args.repeats))
        print("| renderer | spp | render s | wall s | RMSE |")
        print("|---|---:|---:|---:|---:|")
        for renderer in renderers:
            for row in medians[renderer]:
                print("| %s | %d | %.3f | %.3f | %.5f |" % (renderer, row["spp"], row["render"], row["wall"], row["rmse"]))
        print()
        print("| renderer | RMSE slope vs spp |")
        print("|---|---:|")
        for renderer in renderers:
            print("| %s | %.3f |" % (renderer, slope([(r["spp"], r["rmse"]) for r in medians[renderer]])))
        print()
        print("| error level (the spp Cycles needs) | Cycles render s | farmrt sobol render s (ratio) | "
              "farmrt independent render s (ratio) | wall ratio, sobol |")
        print("|---|---:|---:|---:|---:|")
        for row in medians["cycles"]:
            sobol = time_at_error(medians["farmrt sobol"], row["rmse"], "render")
            independent = time_at_error(medians["farmrt independent"], row["rmse"], "render")
            sobol_wall = time_at_error(medians["farmrt sobol"], row["rmse"], "wall")
            print("| %.5f (%d spp) | %.3f | %.3f (%.2f) | %.3f (%.2f) | %.2f |" % (
                row["rmse"], row["spp"], row["render"], sobol, sobol / row["render"], independent,
                independent / row["render"], sobol_wall / row["wall"]))
        print()
        sys.stdout.flush()
    with open(os.path.join(args.out, "runs.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
