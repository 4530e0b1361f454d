# Installs what texla's build and tests need, each step only when it is missing.
# Sourced by tools/build.sh and tools/test.sh; safe to run again and again.

export PATH="$HOME/.cargo/bin:$PATH"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

step() { printf '\n== %s\n' "$*"; }

# The wasm32 target and wasm-bindgen-cli at exactly the Cargo.lock version: its wasm-bindgen
# writes pkg/'s JavaScript, its wasm-bindgen-test-runner runs the browser tests
# (.cargo/config.toml names it the wasm32 runner). No wasm-pack: on a clean machine its build
# took 3 to 4 minutes for what two commands do.
setup_build() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  local want
  want=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
  if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$want" ]; then
    step "installing wasm-bindgen-cli $want (the version in Cargo.lock)"
    # Not --locked: its own lockfile pins a crate that crates.io no longer serves.
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
  # wasm-opt for build_pkg: the npm build of Binaryen (tools/package/package-lock.json), as
  # Binaryen's own releases are not reachable here.
  if [ ! -x tools/package/node_modules/.bin/wasm-opt ]; then
    step "installing Binaryen's wasm-opt (npm binaryen, for build_pkg)"
    (cd tools/package && npm ci --no-audit --no-fund)
  fi
}

# Debian's Chromium and ChromeDriver, playwright-core for the end-to-end tests and typescript
# for the type check (tests/e2e/package-lock.json).
setup_test() {
  setup_build
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    step "installing Debian's chromium and chromium-driver"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver
  fi
  if [ ! -d tests/e2e/node_modules/playwright-core ] || [ ! -d tests/e2e/node_modules/typescript ] \
    || [ ! -d tests/e2e/node_modules/webgpu ]; then
    step "installing playwright-core, typescript and webgpu (Dawn for the Node test; playwright's own browser download is not used)"
    (cd tests/e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi
}

# pkg/ is then the npm package (`cd pkg && npm pack`): the wasm optimised by wasm-opt -Oz
# --converge, the Node entry, package.json with ESM exports (tools/package/finish.mjs).
# Size: LLVM's inlining threshold is 100 (opt-level 3's is 250), texla's dependencies (wgpu's
# WebGPU backend, web-sys, js-sys, glow) are built for size, all in one codegen unit: 1.13 MB,
# 450 KB gzipped, after wasm-opt (2.0 MB, 614 KB without any of it). texla at opt-level "s"
# instead made the wall's CPU physics 1.4x slower; the threshold of 100 keeps its speed and the
# optimizer's (bench/records/package-size-2026-11-26.md). The rustflags add to
# .cargo/config.toml's. Here, not in Cargo.toml: the native benchmark builds wgpu natively with
# the release profile, for speed.
WASM_SIZE_FLAGS=(--config 'profile.release.package."*".opt-level="z"' --config 'profile.release.codegen-units=1'
  --config 'target.wasm32-unknown-unknown.rustflags=["-C", "llvm-args=-inline-threshold=100"]')
build_pkg() {
  step "building pkg/ (the wasm in release, wasm-bindgen --target web, then wasm-opt and the npm package)"
  cargo build --lib --release --target wasm32-unknown-unknown "${WASM_SIZE_FLAGS[@]}"
  local target
  target=$(cargo metadata --format-version 1 --no-deps | node -e \
    'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')
  wasm-bindgen --target web --out-dir pkg "$target/wasm32-unknown-unknown/release/texla.wasm"
  node tools/package/finish.mjs pkg
}
