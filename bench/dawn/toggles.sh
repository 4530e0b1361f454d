#!/usr/bin/env bash
# Why does texla's compute matmul run slower through Dawn than natively? Runs the compute path and
# TF.js through Dawn under several sets of Dawn toggles (one process each, the same GPU), then once
# more with Dawn's shader dump (WGSL in, SPIR-V out, as Tint made it). Run on the device machine
# from the repository root that carries .dawn and .gl, like run-h100.sh:
#
#   bash .dawn/bench/toggles.sh [SIZES]          # default 1024,4096
#
# Each set writes $OUT/<name>/dawn-bench.{log,json,md}; the dump goes to $OUT/dump/shaders.txt.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
sizes="${1:-1024,4096}"
out="${OUT:-/tmp/dawn-out}"
sets=(
  "default|"
  "no-vulkan-memory-model|disable-dawn-features=use_vulkan_memory_model"
  "no-robustness|enable-dawn-features=disable_robustness,disable_workgroup_init,disable_polyfills_on_integer_div_and_mod"
  "all-off|enable-dawn-features=disable_robustness,disable_workgroup_init,disable_polyfills_on_integer_div_and_mod,skip_validation;disable-dawn-features=use_vulkan_memory_model,lazy_clear_resource_on_first_use"
)
for s in "${sets[@]}"; do
  name="${s%%|*}"
  flags="${s#*|}"
  echo "== toggles: $name ($flags)"
  OUT="$out/$name" bash "$here/run-h100.sh" --only matmul --paths "texla matmulCompute,tfjs" \
    --sizes "$sizes" --deadline 120 --dawn-flags "$flags" | grep -E "^\| [0-9]|GFLOPS|exit|adapter"
done
echo "== shader dump"
mkdir -p "$out/dump"
OUT="$out/dump" bash "$here/run-h100.sh" --only matmul --paths "texla matmulCompute" --sizes 256 \
  --deadline 60 --dawn-flags "enable-dawn-features=dump_shaders,disable_symbol_renaming" \
  >"$out/dump/shaders.txt" 2>&1
grep -c "Dumped SPIRV" "$out/dump/shaders.txt"
