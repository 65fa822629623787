#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite: unit, API over HTTP, workflows on the real Temporal dev
# server, replay, storage on PGlite (and on PostgreSQL when TEST_DATABASE_URL is set).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
npx tsc --noEmit
exec npx vitest run "$@"
