#!/usr/bin/env bash
# Installs the build tools where missing and builds pkg/, the npm package (tools/setup.sh's
# build_pkg: the wasm in release, wasm-bindgen --target web, wasm-opt, package.json).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
setup_build
build_pkg
