#!/usr/bin/env bash
# Set up (idempotent) and start the embedded stack: Temporal dev server + UI, PGlite, simulators, API, worker.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec npm start --silent
