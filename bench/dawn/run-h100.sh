#!/usr/bin/env bash
# Runs the Dawn benchmark on the device machine (no network) from what bench/dawn/pack.sh packed
# into .dawn/, with the NVIDIA Vulkan driver. Run from the repository root that carries .dawn and
# .gl:
#
#   bash .dawn/bench/run-h100.sh [bench.mjs options...]
#   bash .dawn/bench/run-h100.sh --kernel-only [kernel-only.mjs options...]
#   bash .dawn/bench/run-h100.sh --wall [wall.mjs options...]   (native_bench's wall, then wall.mjs;
#       --walls 1,10,100 goes to both; with "soft" in the options native_bench's awake scenes
#       run the soft step too; .dawn/pkg-before, where present, runs wall.mjs first)
#   bash .dawn/bench/run-h100.sh --nmf [nmf.mjs options...]     (NMF: native_bench, PyTorch, Dawn)
#   bash .dawn/bench/run-h100.sh --products [bench.mjs options...]   (native and cuBLAS first)
#   bash .dawn/bench/run-h100.sh --transfer [transfer.mjs options...]   (upload and read-back steps)
#   bash .dawn/bench/run-h100.sh --keep-copies-cost [keep-copies.mjs options...]   (what keepCopies
#       false / true / "copy" costs per upload, read() and readInto at n = 1024, 2048, 4096)
#   bash .dawn/bench/run-h100.sh --figures [native_bench options...]   (the ShaderX2 article's Figure 3 and seed
#       003's A x at every order: native_bench --figure3 --mulvec-sweep, then bench_cublas.py beside
#       its records; no node, no Dawn; estimated 3 minutes)
#   bash .dawn/bench/run-h100.sh --float-float [native_bench options...]   (float-float against
#       float32 natively: products n = 256..2048, A x n = 1024..8192, dot of 2^20; native_bench
#       --float-float, its table in native-float-float.log; then the same through Dawn,
#       float-float.mjs, in dawn-float-float.log; no PyTorch)
#   bash .dawn/bench/run-h100.sh --fill-probe   (fill-probe.mjs at 8192 and 4096: a texture filled by
#       writeTexture or by a buffer copy, read by a kernel)
#   bash .dawn/bench/run-h100.sh --resident-steps [resident-steps.mjs options...]   (a resident
#       chain of products at n = 1024 and 2048 step by step: recorded, finished, read back)
#   bash .dawn/bench/run-h100.sh --float16 [bench.mjs options...]   (float16 storage against
#       float32: native_bench --float16 at n = 1024..8192, what Dawn's adapter offers
#       (adapter.mjs: subgroups, shader-f16, subgroup matrices), then bench.mjs's float16 and
#       float32 entries of matmul and mulVec beside TF.js)
#   bash .dawn/bench/run-h100.sh --reductions [reduce.mjs options...]   (sum, dot and the largest
#       |element| natively by every reduction kernel, native_bench --reductions at n = 1024..8192,
#       then torch.sum and torch.dot, then reduce.mjs through Dawn beside TF.js)
#   bash .dawn/bench/run-h100.sh --latency [reduce.mjs options...]   (a small operation's read-back,
#       readback.mjs, and resident chains step by step at 1024 and 2048, each build and TF.js in
#       processes of their own, in turns; then sum and dot at 1024 and 2048 beside TF.js; each
#       beside .dawn/pkg-before where present; about 2 minutes)
#   bash .dawn/bench/run-h100.sh --linear [native_bench options...]   (the SIMD-optimization paper natively: the four
#       measures, Table 3 on 40 x 80 x 80 and Table 4 on 512 x 512; native_bench --linear, its
#       tables in native-linear.log and linear.json; no node, no Dawn; about 70 s)
#
# Defaults: --sizes 1024,2048,4096,8192 --mv-sizes 4096,8192 --deadline 500 (seconds, so that
# a 600 s command ends with its table); any option given here comes first and wins. Writes
# dawn-bench.log, dawn-bench.json and dawn-bench.md to $OUT (or to /tmp/dawn-out if OUT is unset).
# It stops if Dawn finds only a software adapter (REQUIRE_GPU=0 to go on anyway). To try it on
# a machine without the NVIDIA driver (SwiftShader here; see README.md):
#   OUT=/tmp/dawn-sim DAWN_NO_GL=1 REQUIRE_GPU=0 LD_LIBRARY_PATH=/usr/lib/chromium \
#     VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json bash .dawn/bench/run-h100.sh --sizes 128 ...
set -uo pipefail
dawn="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(dirname "$dawn")"
# A pack in a folder of .dawn (pack.sh .dawn/NAME) finds .gl in the repository root it runs from.
[ -d "$repo/.gl" ] || repo="$PWD"
out="${OUT:-/tmp/dawn-out}"
work=/tmp/dawn-run
mkdir -p "$out" "$work"
exec > >(tee -a "$out/dawn-bench.log") 2>&1

echo "== unpacking ($dawn)"
t0=$(date +%s)
if [ -n "${DAWN_NO_GL:-}" ]; then
  echo "DAWN_NO_GL set: using the Vulkan loader on LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
elif ! ldconfig -p | grep -q 'libvulkan.so.1 '; then
  # The Vulkan loader from Debian's packages (.gl, beside .dawn), as the device README says.
  for f in "$repo"/.gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
[ -n "${DAWN_NO_GL:-}" ] || ldconfig -p | grep 'libvulkan.so.1 ' || { echo "no libvulkan.so.1: carry .gl"; exit 1; }
rm -rf "$work/bench" && mkdir -p "$work/bench"
if [ "${1:-}" != "--figures" ] && [ "${1:-}" != "--linear" ]; then   # these need neither node nor Dawn
  xz -dc "$dawn/node.xz" >"$work/node" && chmod +x "$work/node" || exit 1
  tar -C "$work/bench" -xJf "$dawn/node_modules.tar.xz"
  cp "$dawn"/bench/{adapter.mjs,bench.mjs,dawn.mjs,peers.mjs,onnx-matmul.mjs,wall.mjs,nmf.mjs,kernel-only.mjs,transfer.mjs,float-float.mjs,resident-steps.mjs,keep-copies.mjs,reduce.mjs,readback.mjs,submit-probe.mjs,fill-probe.mjs,package.json} "$work/bench/"
  # dawn.node needs GLIBCXX_3.4.30: if this machine's libstdc++ is older, use the packed one.
  if ! "$work/node" -e "require('$work/bench/node_modules/webgpu/dist/linux-x64/dawn.node')" 2>/dev/null; then
    mkdir -p "$work/lib" && xz -dc "$dawn/libstdc++.so.6.xz" >"$work/lib/libstdc++.so.6"
    export LD_LIBRARY_PATH="$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "dawn.node did not load with this machine's libstdc++: using the packed one"
    "$work/node" -e "require('$work/bench/node_modules/webgpu/dist/linux-x64/dawn.node')" || exit 1
  fi
  echo "unpacked in $(($(date +%s) - t0)) s; node $("$work/node" --version)"
fi

if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-} VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-}"
nvidia-smi -L 2>/dev/null || true
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null || true

require_gpu=--require-gpu   # stop at once if Dawn offers only a software adapter
[ "${REQUIRE_GPU:-1}" = 0 ] && require_gpu=
cd "$work/bench"
# native LOG OPTIONS...: the packed native_bench (where one was packed) with OPTIONS, into $out/LOG.
native() {
  [ -f "$dawn/native/native_bench.xz" ] || return 0
  local log="$1"
  shift
  echo "== native_bench $*"
  xz -dc "$dawn/native/native_bench.xz" >"$work/native_bench" && chmod +x "$work/native_bench"
  "$work/native_bench" "$@" 2>&1 | tee "$out/$log"
}
if [ "${1:-}" = "--figures" ]; then
  # The ShaderX2 article's Figure 3 (n = 1000) and Fujimoto's A x at every order (16 to 12800) natively, then
  # the same in PyTorch (GPU and CPU; cuBLAS sgemv), which reads native_bench's JSON records and
  # prints the ratios. The remaining options go to native_bench (say --sweep-max 4096).
  shift
  t1=$(date +%s)
  native native-figures.log --figure3 --mulvec-sweep --out "$out" "$@"
  echo "== native parts done in $(($(date +%s) - t1)) s"
  echo "== PyTorch: Figure 3, then cuBLAS sgemv at the same orders"
  python3 "$dawn/bench/bench_cublas.py" --figure3 --texla "$out/native-figure3.json" --out "$out" 2>&1 | tee "$out/torch-figure3.log"
  python3 "$dawn/bench/bench_cublas.py" --sgemv-sweep --texla "$out/native-mulvec-sweep.json" --out "$out" 2>&1 | tee "$out/torch-sgemv-sweep.log"
  echo "== figures done in $(($(date +%s) - t1)) s"
  sleep 1   # let tee finish the log
  exit 0
fi
if [ "${1:-}" = "--reductions" ]; then
  shift
  native native-reductions.log --reductions --sizes 1024,2048,4096,8192 --rounds 5
  python3 "$dawn/bench/bench_cublas.py" 1024,2048,4096,8192 --reductions 2>&1 | tee "$out/torch-reductions.log"
  before=()
  [ -d "$dawn/pkg-before" ] && before=(--before "$dawn/pkg-before")   # an earlier build, put there by hand
  OUT="$out" "$work/node" reduce.mjs --pkg "$dawn/pkg" --sizes 1024,2048,4096,8192 "${before[@]}" "$@" 2>&1 | tee "$out/dawn-reduce.log"
  sleep 1
  exit 0
fi
if [ "${1:-}" = "--latency" ]; then
  # What a small operation and its read-back cost (readback.mjs), then a resident chain step by
  # step (resident-steps.mjs) at n = 1024 and 2048: each build (.dawn/pkg, and .dawn/pkg-before
  # where present) and TF.js in processes of their own, in turns, three rounds. Then sum and dot
  # beside TF.js (reduce.mjs, which takes the remaining options) at 1024 and 2048.
  shift
  builds=(pkg)
  [ -d "$dawn/pkg-before" ] && builds+=(pkg-before)
  for round in 1 2 3; do
    for p in "${builds[@]}"; do
      echo "== round $round: $p"
      "$work/node" readback.mjs --pkg "$dawn/$p"
      for n in 1024 2048; do "$work/node" resident-steps.mjs --pkg "$dawn/$p" --n "$n" ${require_gpu}; done
    done
    echo "== round $round: TF.js"
    "$work/node" readback.mjs --tfjs
  done 2>&1 | grep -v "^Dawn adapter" | tee "$out/latency.log"
  before=()
  [ -d "$dawn/pkg-before" ] && before=(--before "$dawn/pkg-before")
  OUT="$out" "$work/node" reduce.mjs --pkg "$dawn/pkg" --sizes 1024,2048 "${before[@]}" "$@" 2>&1 | tee "$out/dawn-reduce.log"
  sleep 1
  exit 0
fi
if [ "${1:-}" = "--float-float" ]; then
  # Float-float against float32 natively (native_bench --float-float): the remaining options go to
  # native_bench (say --ff-sizes 256,512 --batches 9).
  shift
  [ -f "$dawn/native/native_bench.xz" ] || { echo "no native_bench packed: build it, then pack.sh"; exit 1; }
  t1=$(date +%s)
  native native-float-float.log --float-float "$@"
  echo "== float-float through Dawn (float-float.mjs)"
  "$work/node" float-float.mjs --pkg "$dawn/pkg" 2>&1 | tee "$out/dawn-float-float.log"
  echo "== float-float done in $(($(date +%s) - t1)) s"
  sleep 1   # let tee finish the log
  exit 0
fi
if [ "${1:-}" = "--linear" ]; then
  # The SIMD-optimization paper natively (native_bench --linear): the remaining options go to native_bench (say
  # --linear-grid 40,20,20 --wave-side 256).
  shift
  [ -f "$dawn/native/native_bench.xz" ] || { echo "no native_bench packed: build it, then pack.sh"; exit 1; }
  t1=$(date +%s)
  native native-linear.log --linear --out "$out" "$@"
  echo "== the SIMD-optimization paper done in $(($(date +%s) - t1)) s"
  sleep 1   # let tee finish the log
  exit 0
fi
if [ "${1:-}" = "--float16" ]; then
  shift
  native native-float16.log --float16 --sizes 1024,2048,4096,8192
  echo "== what Dawn's adapter offers"
  "$work/node" adapter.mjs 2>&1 | tee "$out/dawn-adapter.log"
  set -- --only matmul,mulvec --sizes 1024,2048,4096 --reps 7 \
    --paths 'texla matmul$,texla matmul float16,texla mulVec$,texla mulVec float16,tfjs' "$@"
fi
if [ "${1:-}" = "--kernel-only" ]; then
  # texla's compute kernel without texla (kernel-only.mjs): the remaining options go to it.
  shift
  echo "== kernel only"
  for n in 2048 4096; do "$work/node" kernel-only.mjs --pkg "$dawn/pkg" --n "$n" "$@"; done
  exit $?
fi
if [ "${1:-}" = "--fill-probe" ]; then
  # How a texture was filled against how fast a kernel reads it (fill-probe.mjs), at 8192 and 4096.
  shift
  echo "== fill probe"
  for n in 8192 4096; do "$work/node" fill-probe.mjs --pkg "$dawn/pkg" --cols "$n" "$@"; done 2>&1 | tee "$out/fill-probe.log"
  exit 0
fi
if [ "${1:-}" = "--resident-steps" ]; then
  # Where a resident chain's time goes (resident-steps.mjs): the remaining options go to it.
  shift
  echo "== resident steps"
  for n in 1024 2048; do "$work/node" resident-steps.mjs --pkg "$dawn/pkg" --n "$n" ${require_gpu} "$@"; done 2>&1 | tee "$out/resident-steps.log"
  exit 0
fi
if [ "${1:-}" = "--keep-copies-cost" ]; then
  # What keepCopies costs per upload and read-back (keep-copies.mjs): the options go to it.
  shift
  echo "== keepCopies per call"
  "$work/node" keep-copies.mjs --pkg "$dawn/pkg" --sizes 1024,2048,4096 "$@" 2>&1 | tee "$out/keep-copies.log"
  exit "${PIPESTATUS[0]}"
fi
if [ "${1:-}" = "--transfer" ]; then
  # Where a large upload and read-back spend their time (transfer.mjs): the options go to it.
  shift
  echo "== transfers"
  "$work/node" transfer.mjs --pkg "$dawn/pkg" ${require_gpu} "$@" 2>&1 | tee "$out/transfer.log"
  exit "${PIPESTATUS[0]}"
fi
if [ "${1:-}" = "--nmf" ]; then
  # The thesis's NMF at the thesis's shape natively, in PyTorch (GPU and CPU, where python3 has
  # torch) and through Dawn: the remaining options go to nmf.mjs.
  shift
  native native-nmf.log --no-products --no-lcp --no-wall
  echo "== PyTorch NMF"
  python3 "$dawn/bench/bench_cublas.py" --nmf-only 2>&1 | tee "$out/torch-nmf.log"
  echo "== NMF through Dawn"
  "$work/node" nmf.mjs "$@" ${require_gpu} --pkg "$dawn/pkg" 2>&1 | tee "$out/dawn-nmf.log"
  exit 0
fi
if [ "${1:-}" = "--wall" ]; then
  # The wall natively (wgpu on Vulkan) and through Dawn beside Rapier: the remaining options go
  # to wall.mjs, and its --walls (say 1,10,100) to native_bench too.
  shift
  walls=1,10
  prev=
  for a in "$@"; do [ "$prev" = --walls ] && walls="$a"; prev="$a"; done
  native native-wall.log --no-products --no-lcp --walls "$walls"
  case " $* " in *soft*) native native-wall-soft.log --no-products --no-lcp --wall-cpu --walls "$walls" --wall-solver soft ;; esac
  if [ -d "$dawn/pkg-before" ]; then
    echo "== wall through Dawn, the build in .dawn/pkg-before"
    "$work/node" wall.mjs "$@" ${require_gpu} --pkg "$dawn/pkg-before" --out "$out/wall-bench-before.json" --md "$out/wall-bench-before.md"
  fi
  echo "== wall through Dawn, beside Rapier"
  "$work/node" wall.mjs "$@" ${require_gpu} --pkg "$dawn/pkg" --out "$out/wall-bench.json" --md "$out/wall-bench.md"
  exit $?
fi
if [ "${1:-}" = "--products" ]; then
  # The same products natively (wgpu on Vulkan) and in cuBLAS (PyTorch) first, in the same lease.
  shift
  native native-products.log --no-lcp --no-wall --no-nmf
  echo "== cuBLAS"
  python3 "$dawn/bench/bench_cublas.py" 2>&1 | tee "$out/cublas.log"
fi
echo "== bench"
"$work/node" bench.mjs "$@" \
  --sizes 1024,2048,4096,8192 --mv-sizes 4096,8192 --deadline 500 ${require_gpu} \
  --pkg "$dawn/pkg" --out "$out/dawn-bench.json" --md "$out/dawn-bench.md"
rc=$?
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader 2>/dev/null || true
echo "== exit $rc"
sleep 1   # let tee finish the log
exit $rc
