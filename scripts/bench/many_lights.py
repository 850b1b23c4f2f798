#!/usr/bin/env python3
"""Choosing among many lamps: the light tree against choosing by power
(sampling.light_sampler), on halls with LAMPS lamps on the ceiling
(scripts/generate/lamp_grid.py --hall). RMSE against a converged render
(the tree at REFERENCE_SPP), render phase and wall time at several spp, runs
interleaved, medians of REPEATS; then the time the tree needs for the error
choosing by power reaches at each spp (log-log interpolation).

    scripts/bench/many_lights.py FARMRT OUT_DIR [--lamps 100,400] [--repeats 3] [--reference-spp 2048]
        [--backend cpu|cuda] [--threads N]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import image_error  # noqa: E402
from cycles_compare import time_at_error  # noqa: E402

SPPS = [4, 16, 64, 256]


def render(farmrt, scene, image, spp, seed, sampler, backend, threads):
    stats = image + ".json"
    command = [farmrt, scene, "-q", "-o", image, "--spp", str(spp), "--backend", backend,
               "--set", "sampling.seed=%d" % seed, "--set", "sampling.light_sampler=" + sampler, "--stats", stats]
    if threads:
        command += ["--threads", str(threads)]
    start = time.monotonic()
    subprocess.run(command, check=True)
    wall = time.monotonic() - start
    with open(stats) as f:
        return wall, json.load(f)["render_seconds"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("farmrt")
    parser.add_argument("out")
    parser.add_argument("--lamps", default="100,400")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-spp", type=int, default=2048)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for lamps in map(int, args.lamps.split(",")):
        scene = os.path.join(args.out, "hall_%d.yaml" % lamps)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/generate/lamp_grid.py"), "--hall", str(lamps), scene],
                       check=True, capture_output=True)
        reference = os.path.join(args.out, "hall_%d_reference.pfm" % lamps)
        if not os.path.exists(reference):
            render(args.farmrt, scene, reference, args.reference_spp, 1000, "tree", args.backend, args.threads)
        ref, _, _ = image_error.read_pfm(reference)
        runs = []
        for repeat in range(args.repeats):
            for spp in SPPS:
                for sampler in ("power", "tree"):
                    image = os.path.join(args.out, "hall_%d_%s_%d_%d.pfm" % (lamps, sampler, spp, repeat))
                    wall, seconds = render(args.farmrt, scene, image, spp, repeat, sampler, args.backend, args.threads)
                    pixels, _, _ = image_error.read_pfm(image)
                    runs.append({"sampler": sampler, "spp": spp, "wall": wall, "render": seconds,
                                 "rmse": image_error.rmse(pixels, ref)})
        medians = {}
        for sampler in ("power", "tree"):
            medians[sampler] = [{"spp": spp, **{k: statistics.median(r[k] for r in runs
                                                                       if r["sampler"] == sampler and r["spp"] == spp)
                                                for k in ("wall", "render", "rmse")}} for spp in SPPS]
        print("## %d lamps (scripts/generate/lamp_grid.py --hall %d), %s, medians of %d\n" % (
            lamps, lamps, args.backend, args.repeats))
        print("| light_sampler | spp | render s | wall s | RMSE |")
        print("|---|---:|---:|---:|---:|")
        for sampler in ("power", "tree"):
            for row in medians[sampler]:
                print("| %s | %d | %.3f | %.3f | %.5f |" % (sampler, row["spp"], row["render"], row["wall"], row["rmse"]))
        print()
        print("| error of power at | power render s | tree render s to the same error | power / tree |")
        print("|---|---:|---:|---:|")
        for row in medians["power"]:
            tree = time_at_error(medians["tree"], row["rmse"], "render")
            print("| %d spp (%.5f) | %.3f | %.3f | %.2fx |" % (row["spp"], row["rmse"], row["render"], tree,
                                                            row["render"] / tree))
        print()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
