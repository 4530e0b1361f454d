#!/usr/bin/env bash
# Why does texla's compute matmul run slower through Dawn than natively? Runs the compute path and
# TF.js through Dawn under several sets of Dawn toggles (one process each, the same GPU), then once
# more with Dawn's shader dump (WGSL in, SPIR-V out, as Tint made it). Run on the device machine
# from the repository root that carries .dawn and .gl, like run-h100.sh:
#
#   bash .dawn/bench/toggles.sh [SIZES] [SETS]   # default 1024,4096 and every set below
#
# SETS names the sets to run, comma-separated (e.g. default,no-vulkan-memory-model). Each set
# runs the compute paths of texla (matmulCompute, mulVecCompute at n = 8192, lcpJacobiCompute)
# and TF.js's matMul, and writes $OUT/<name>.md; the dump goes to $OUT/shaders.txt.xz.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
sizes="${1:-1024,4096}"
only="${2:-}"
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
  [ -n "$only" ] && [[ ",$only," != *",$name,"* ]] && continue
  echo "== toggles: $name ($flags)"
  OUT="/tmp/toggles/$name" bash "$here/run-h100.sh" --only matmul,mulvec,solvers \
    --paths "texla matmulCompute,texla mulVecCompute,texla lcpJacobiCompute,tfjs matMul" \
    --sizes "$sizes" --mv-sizes 8192 --deadline 150 --dawn-flags "$flags" >/dev/null 2>&1
  cp "/tmp/toggles/$name/dawn-bench.md" "$out/$name.md"
  grep -E "^\| [0-9a-z]" "$out/$name.md" | grep -v "^| n |\|^| solver"
done
echo "== shader dump (default, then without the Vulkan memory model)"
for flags in "" ";disable-dawn-features=use_vulkan_memory_model"; do
  OUT=/tmp/toggles/dump bash "$here/run-h100.sh" --only matmul --paths "texla matmulCompute" \
    --sizes 256 --deadline 60 --dawn-flags "enable-dawn-features=dump_shaders,disable_symbol_renaming$flags"
done >/tmp/toggles/shaders.txt 2>&1
grep -o "OpControlBarrier.*" /tmp/toggles/shaders.txt | sort | uniq -c
xz -9 -c /tmp/toggles/shaders.txt >"$out/shaders.txt.xz"
