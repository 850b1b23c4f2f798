#!/usr/bin/env bash
# The million-triangle scene of the GPU benchmarks: the 1M-triangle PLY torus
# of dense_ply.py in a metallic principled material on a diffuse floor, lit
# by configs/textures/sky.pfm and an emissive sphere (next-event estimation
# samples both), 960x540. Writes OUT_DIR/torus_1m.ply (once) and
# OUT_DIR/env_model.yaml.
#   scripts/generate/env_model.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: generate/env_model.sh OUT_DIR}
mkdir -p "$out"
[ -f "$out/torus_1m.ply" ] || python3 "$root/scripts/generate/dense_ply.py" "$out/torus_1m.ply" 1000000
cat > "$out/env_model.yaml" <<YAML
# Written by scripts/generate/env_model.sh.
image: {width: 960, height: 540, output: env_model.pfm}
sampling: {spp: 64, max_depth: 16, seed: 0}
camera: {lookfrom: [0, 2.2, 4.2], lookat: [0, 0.35, 0], vup: [0, 1, 0], vfov: 40}
background:
  environment: {file: $root/configs/textures/sky.pfm, intensity: 0.5, rotation: -30}
materials:
  floor: {type: lambertian, albedo: [0.6, 0.6, 0.6]}
  copper: {type: principled, base_color: [0.95, 0.64, 0.54], metallic: 1, roughness: 0.35}
  lamp: {type: emissive, color: [12, 10, 8]}
objects:
  - {type: quad, Q: [-20, 0, -20], u: [40, 0, 0], v: [0, 0, 40], material: floor}
  - {type: model, file: $out/torus_1m.ply, material: copper, transform: {rotate_x: 20, translate: [0, 0.6, 0]}}
  - {type: sphere, center: [-1.8, 2.2, 1.5], radius: 0.3, material: lamp}
YAML
