#!/usr/bin/env bash
# Quick start, first command: installs the build tools, builds pkg/ and serves the page.
# PORT=8080 by default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
exec python3 tools/serve.py "${PORT:-8080}"
