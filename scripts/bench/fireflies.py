#!/usr/bin/env python3
"""Firefly control (sampling.clamp) on configs/models.yaml (caustics through
its glass sphere): at SPP samples, the isolated bright pixels (luminance
above 1 and above 4x the median of their 3x3 neighbourhood), the RMSE
against a converged unclamped render (REFERENCE_SPP), and the mean
luminance's change (the clamp's bias), for several limits.

    scripts/bench/fireflies.py FARMRT OUT_DIR [--spp 64] [--reference-spp 4096] [--size 120]
        [--variants "SETTING[,SETTING...];..."]   (default: the independent sampler; Sobol unclamped;
                                                   indirect light clamped at 100, 10 and 3; everything at 10)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import image_error  # noqa: E402


def luminance(pixels):
    return [0.2126 * pixels[i] + 0.7152 * pixels[i + 1] + 0.0722 * pixels[i + 2] for i in range(0, len(pixels), 3)]


def outliers(values, width, height):
    count = 0
    for y in range(height):
        for x in range(width):
            v = values[y * width + x]
            if v <= 1.0:
                continue
            around = [values[yy * width + xx] for yy in range(max(0, y - 1), min(height, y + 2))
                      for xx in range(max(0, x - 1), min(width, x + 2)) if (xx, yy) != (x, y)]
            if v > 4 * statistics.median(around):
                count += 1
    return count


def render(farmrt, image, spp, settings, seed, size):
    stats = image + ".json"
    command = [farmrt, os.path.join(ROOT, "configs/models.yaml"), "-q", "-o", image, "--spp", str(spp),
               "--width", str(size), "--height", str(size), "--set", "sampling.seed=%d" % seed, "--stats", stats]
    for setting in settings:
        command += ["--set", setting]
    subprocess.run(command, check=True, cwd=ROOT)
    with open(stats) as f:
        return json.load(f)["render_seconds"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("farmrt")
    parser.add_argument("out")
    parser.add_argument("--spp", type=int, default=64)
    parser.add_argument("--reference-spp", type=int, default=4096)
    parser.add_argument("--variants", default="sampling.sampler=independent;sampling.clamp=0;"
                        "sampling.clamp={indirect: 100};sampling.clamp={indirect: 10};sampling.clamp={indirect: 3};"
                        "sampling.clamp=10")
    parser.add_argument("--size", type=int, default=120)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    reference = os.path.join(args.out, "models_reference.pfm")
    if not os.path.exists(reference):
        render(args.farmrt, reference, args.reference_spp, [], 1000, args.size)
    ref, width, height = image_error.read_pfm(reference)
    ref_mean = statistics.fmean(luminance(ref))
    print("configs/models.yaml, %dx%d, %d spp; reference: unclamped, %d spp\n" % (width, height, args.spp,
                                                                                args.reference_spp))
    print("| settings | render s | isolated bright pixels | RMSE | mean luminance vs unclamped reference |")
    print("|---|---:|---:|---:|---:|")
    for number, variant in enumerate(args.variants.split(";")):
        image = os.path.join(args.out, "models_variant_%d.pfm" % number)
        seconds = render(args.farmrt, image, args.spp, variant.split(","), 1, args.size)
        pixels, _, _ = image_error.read_pfm(image)
        values = luminance(pixels)
        print("| `%s` | %.2f | %d | %.4f | %+.2f%% |" % (", ".join(variant.split(",")), seconds,
                                                     outliers(values, width, height), image_error.rmse(pixels, ref),
                                                     100 * (statistics.fmean(values) / ref_mean - 1)))


if __name__ == "__main__":
    main()
