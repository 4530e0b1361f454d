#!/usr/bin/env bash
# Quick start, second command: installs what the tests need and runs every test:
# native unit tests, browser tests on WebGPU and WebGL2, and the end-to-end page test.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
setup_test

step "native tests (packing, index math, float64 reference)"
cargo test

step "browser tests in headless Chrome, each on WebGPU and on WebGL2"
# The wall tests simulate frames on a CPU-emulated GPU: more than the default 20 s.
WASM_BINDGEN_TEST_TIMEOUT=180 wasm-pack test --headless --chrome

build_pkg
step "end-to-end: the served page in headless Chromium, on both backends"
(cd tests/e2e && node --test page.test.mjs)
