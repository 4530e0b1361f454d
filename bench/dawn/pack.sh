#!/usr/bin/env bash
# Packs what the Dawn benchmark needs on a machine with no network (the device machine) into an
# ignored folder `.dawn/` of the checkout that the device tool sends, beside `.gl/` (the Vulkan
# loader as Debian .debs, made here if missing). See README.md beside this file.
#
#   bash bench/dawn/pack.sh [DEST]
#
# DEST defaults to `.dawn` in the MAIN worktree of this repository (the checkout the device tool
# sends, also when this script runs in another worktree); a folder inside it (`.dawn/NAME`, carried
# as such) keeps one worktree's pack apart from another's. `.gl` is the main worktree's (GL=DIR
# for another). It holds:
#   node.xz                  this machine's node binary (NODE=/path/to/node to pick another)
#   node_modules.tar.xz      bench/dawn/node_modules for linux-x64: webgpu's dawn.node, TF.js
#                            (tfjs-core, -backend-webgpu, -backend-cpu), jax-js, onnxruntime-node
#                            (its linux-x64 binding and libonnxruntime.so.1, 46 MB before xz),
#                            Rapier (rapier3d-compat); no source maps, no types
#   libstdc++.so.6.xz        this machine's libstdc++, for a machine whose own is too old for dawn.node
#   bench/                   adapter.mjs, bench.mjs, dawn.mjs, peers.mjs, onnx-matmul.mjs, wall.mjs, nmf.mjs, package.json, package-lock.json, run-h100.sh, toggles.sh, kernel-only.mjs, transfer.mjs, float-float.mjs, resident-steps.mjs, reduce.mjs, README.md, and bench/cublas.py
#   native/native_bench.xz   release/native_bench of $CARGO_TARGET_DIR (default: this worktree's
#                            target/), or NATIVE_BENCH=/path/to/native_bench: run-h100.sh --wall,
#                            --nmf, --products and --figures run it
#   pkg/                     texla's built pkg/ (PKG=/path/to/pkg; default: this worktree's pkg/)
#   MANIFEST                 what was packed, from where, sizes and sha256
# Run it again after changing bench.mjs or rebuilding pkg/ (node.xz is kept if the binary is the same).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel)"
main="$(cd "$here" && cd "$(git rev-parse --git-common-dir)/.." && pwd)"
dest="${1:-$main/.dawn}"
node_bin="${NODE:-$(command -v node)}"
pkg="${PKG:-$root/pkg}"
limit_mib=55

[ -f "$pkg/texla.js" ] && [ -f "$pkg/texla_bg.wasm" ] || { echo "no built pkg/ at $pkg (set PKG=DIR)" >&2; exit 1; }
[ -f "$here/node_modules/webgpu/dist/linux-x64/dawn.node" ] && [ -f "$here/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" ] || { echo "run: (cd $here && npm ci --ignore-scripts)" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || { echo "the device machine is x86-64: pack on x86-64" >&2; exit 1; }

mkdir -p "$dest/bench" "$dest/pkg"

# The Vulkan loader (and GL libraries) as Debian packages, in the sent checkout's ignored .gl/.
gl="${GL:-$main/.gl}"
if ! ls "$gl"/libvulkan1_*.deb >/dev/null 2>&1; then
  echo "making $gl (Debian's libvulkan1 and GL libraries, amd64)"
  mkdir -p "$gl" /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $o update >/dev/null
  # shellcheck disable=SC2086
  (cd "$gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi

# node: the binary compressed (kept when the same binary was packed before).
sum="$(sha256sum "$node_bin" | cut -d' ' -f1)"
if [ ! -f "$dest/node.xz" ] || [ "$(cat "$dest/node.sha256" 2>/dev/null)" != "$sum" ]; then
  echo "compressing $node_bin ($("$node_bin" --version)); a minute or two"
  ldd "$node_bin" | grep -q 'not found' && { echo "$node_bin lacks libraries" >&2; exit 1; }
  xz -9 -T0 -c "$node_bin" >"$dest/node.xz.tmp"
  mv "$dest/node.xz.tmp" "$dest/node.xz"
  echo "$sum" >"$dest/node.sha256"
fi

# node_modules: linux-x64 only, no maps or types (-h: a worktree's node_modules may be a link to the main one's).
echo "packing node_modules"
tar -C "$here" -chf - \
  --exclude='node_modules/webgpu/dist/darwin-*' --exclude='node_modules/webgpu/dist/win32-*' \
  --exclude='node_modules/webgpu/dist/linux-arm64' --exclude='*.map' --exclude='*.d.ts' \
  --exclude='node_modules/onnxruntime-node/bin/napi-v6/darwin' --exclude='node_modules/onnxruntime-node/bin/napi-v6/win32' \
  --exclude='node_modules/onnxruntime-node/bin/napi-v6/linux/arm64' --exclude='node_modules/onnxruntime-node/lib' \
  node_modules | xz -9 -T0 >"$dest/node_modules.tar.xz"

# This machine's libstdc++ (dawn.node needs GLIBCXX_3.4.30): used there only if theirs is older.
libstdcxx="$(ldd "$here/node_modules/webgpu/dist/linux-x64/dawn.node" | awk '/libstdc\+\+/ {print $3}')"
xz -9 -c "$(readlink -f "$libstdcxx")" >"$dest/libstdc++.so.6.xz"

cp "$here"/{adapter.mjs,bench.mjs,dawn.mjs,peers.mjs,onnx-matmul.mjs,wall.mjs,nmf.mjs,package.json,package-lock.json,run-h100.sh,toggles.sh,kernel-only.mjs,transfer.mjs,float-float.mjs,resident-steps.mjs,keep-copies.mjs,reduce.mjs,readback.mjs,submit-probe.mjs,fill-probe.mjs,README.md} "$dest/bench/"
cp "$root/bench/cublas.py" "$dest/bench/bench_cublas.py"

# The native benchmark, where it was built (cargo build --release -p native_bench;
# build it from this worktree just before packing: a shared CARGO_TARGET_DIR holds
# whichever worktree built last).
native="${NATIVE_BENCH:-${CARGO_TARGET_DIR:-$root/target}/release/native_bench}"
if [ -x "$native" ]; then
  echo "packing $native (built $(date -u -r "$native" +%FT%TZ))"
  mkdir -p "$dest/native" && xz -9 -T0 -c "$native" >"$dest/native/native_bench.xz"
else
  echo "no $native: run-h100.sh's native parts will be skipped (build it, or set NATIVE_BENCH)" >&2
  rm -f "$dest/native/native_bench.xz"
fi
rm -rf "$dest/pkg" && mkdir -p "$dest/pkg"
cp "$pkg"/{texla.js,texla_bg.wasm,package.json} "$dest/pkg/"

{
  echo "packed $(date -u +%FT%TZ) on $(hostname) from $root ($(git -C "$root" rev-parse --short HEAD) $(git -C "$root" rev-parse --abbrev-ref HEAD))"
  echo "node: $node_bin $("$node_bin" --version)"
  echo "pkg: $pkg (texla_bg.wasm built $(date -u -r "$pkg/texla_bg.wasm" +%FT%TZ))"
  (cd "$dest" && find . -type f ! -name MANIFEST ! -name node.sha256 | sort | xargs sha256sum)
} >"$dest/MANIFEST"

size() { du -sb "$@" | awk '{s += $1} END {printf "%.1f", s / 1048576}'; }
total="$(size "$dest" "$gl")"
echo "$dest: $(size "$dest") MiB; with $gl: $total MiB (limit ${limit_mib} MiB)"
awk -v t="$total" -v l="$limit_mib" 'BEGIN {exit !(t > l)}' && { echo "too large to carry" >&2; exit 1; }
echo "device command (carry [\".dawn\", \".gl\"]): bash .dawn/bench/run-h100.sh"
