#!/usr/bin/env bash
# Every model file of assimp-testmodels in a format farmrt reads (glTF, OBJ,
# PLY, STL, Collada, FBX, 3DS): rendered with `farmrt FILE`, or refused with
# its one line. Prints a tally per format and the refusals (markdown), keeps
# the per-file list in OUT_DIR/files.md and writes a contact sheet of the
# renders (OUT_DIR/contact_sheet.png, with oiiotool where installed).
#
#   scripts/bench/model_files.sh FARMRT OUT_DIR [MODELS_DIR]
#   (MODELS_DIR: assimp-testmodels' models folder, default /usr/share/assimp/models)
set -uo pipefail
farmrt=${1:?usage: bench/model_files.sh FARMRT OUT_DIR [MODELS_DIR]}
out=${2:?usage: bench/model_files.sh FARMRT OUT_DIR [MODELS_DIR]}
models=${3:-/usr/share/assimp/models}
mkdir -p "$out/renders"
declare -A rendered_count refused_count
rendered=()
: >"$out/files.md"
: >"$out/refused.md"
while IFS= read -r file; do
  relative=${file#"$models"/}
  extension=$(echo "${file##*.}" | tr '[:upper:]' '[:lower:]')
  case $extension in glb) extension=gltf ;; zae) extension=dae ;; esac
  image=$out/renders/$(echo "$relative" | tr '/ ' '__').png
  if timeout 120 "$farmrt" "$file" --width 160 --height 120 --spp 16 -q -o "$image" 2>"$out/stderr.txt"; then
    rendered+=("$image")
    rendered_count[$extension]=$(( ${rendered_count[$extension]:-0} + 1 ))
    echo "| $relative | rendered |" >>"$out/files.md"
  else
    refused_count[$extension]=$(( ${refused_count[$extension]:-0} + 1 ))
    line=$(grep 'farmrt: error' "$out/stderr.txt" | sed "s|$models/||; s|farmrt: error: ||" | cut -c1-140)
    echo "| $relative | refused: \`$line\` |" >>"$out/files.md"
    echo "| $relative | \`$line\` |" >>"$out/refused.md"
  fi
done < <(find "$models" -type f \( -iname '*.gltf' -o -iname '*.glb' -o -iname '*.obj' -o -iname '*.ply' -o \
  -iname '*.stl' -o -iname '*.dae' -o -iname '*.zae' -o -iname '*.fbx' -o -iname '*.3ds' \) | sort)
echo "| format | rendered | refused with one line |"
echo "|---|---:|---:|"
for extension in gltf obj ply stl dae fbx 3ds; do
  echo "| $extension | ${rendered_count[$extension]:-0} | ${refused_count[$extension]:-0} |"
done
echo
echo "| refused file | its line |"
echo "|---|---|"
cat "$out/refused.md"
if command -v oiiotool >/dev/null && [ ${#rendered[@]} -gt 0 ]; then
  oiiotool "${rendered[@]}" --mosaic:pad=2 12x$(( (${#rendered[@]} + 11) / 12 )) -o "$out/contact_sheet.png"
fi
