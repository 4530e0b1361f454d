#!/usr/bin/env bash
# Quick start, second command: installs what the tests need and runs every test:
# native unit tests, browser tests on WebGPU and WebGL2, the type check of the documented API,
# and the end-to-end tests (the page and the documentation's examples).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
setup_test

step "native tests (packing, index math, float64 reference)"
# With naga (the native feature) too: Table 5's instruction record is current, and the generated
# kernels validate. One build: the native feature only adds (wgpu's Vulkan backend, naga).
# tests/tensor.rs needs a native adapter: SwiftShader's Vulkan (Chromium's loader and ICD), which
# has no cooperative matrices, so here it checks the tensor-core product's clear error.
# --workspace: the native benchmark (bench/native) builds too, on the same build of the library.
LD_LIBRARY_PATH=/usr/lib/chromium VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json \
  cargo test --workspace --features native

step "rustdoc: the API docs build with no warning (broken or private intra-doc links)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps

step "browser tests in headless Chrome, each on WebGPU and on WebGL2"
# The wall tests simulate frames on a CPU-emulated GPU (the default wall stands 30 s of
# simulated time, 1800 frames, on each backend: about 3 minutes here): more than the
# default 20 s for a test binary. tests/*.rs only: src/'s unit tests are native, and their wasm
# build (the library compiled once more) would hold none.
CHROMEDRIVER=$(command -v chromedriver) WASM_BINDGEN_TEST_TIMEOUT=900 \
  cargo test --target wasm32-unknown-unknown --test "*"

build_pkg
step "type check: the calls of docs/api.md against pkg/texla.d.ts"
(cd tests/e2e && npx tsc -p tsconfig.json)

step "end-to-end: the served page and the documentation's examples in headless Chromium, on both backends"
# Two files at a time: a page waiting on its (CPU-emulated) GPU leaves a core idle, and two at a
# time took 19% less time here. The files that time the page (start-up, the lab's longest task,
# the page held during a read after a loss) run afterwards, alone.
ALONE=(./startup.test.mjs ./lab.test.mjs ./loss.test.mjs)
(cd tests/e2e && node --test --test-concurrency=2 $(ls ./*.test.mjs | grep -v -F "${ALONE[@]/#/-e}") \
  && node --test --test-concurrency=1 "${ALONE[@]}")
