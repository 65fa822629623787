#!/usr/bin/env bash
# Set up (idempotent), check format, lint and layers, and run the whole test suite: unit, API over HTTP, workflows on the real Temporal dev
# server, replay, storage on PGlite and on PostgreSQL (TEST_DATABASE_URL, or a local server on 127.0.0.1:5432).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# The PostgreSQL suites use TEST_DATABASE_URL, or the local server of this machine kind when one answers.
if [ -z "${TEST_DATABASE_URL:-}" ] && node -e 'const {Client}=require("pg");const c=new Client({connectionString:"postgres://postgres@127.0.0.1:5432/test",connectionTimeoutMillis:2000});c.connect().then(()=>c.end()).catch(()=>process.exit(1))' 2>/dev/null; then
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/test"
  echo "[test] PostgreSQL suites: local server at 127.0.0.1:5432"
fi
npx tsc --noEmit
npx tsc --noEmit -p tsconfig.pages.json   # the browser pages, against the DOM's types
# Format, lint (typescript-eslint, the workflow sandbox's import bans, SQL only in the store) and the layers.
npm run --silent lint
exec npx vitest run "$@"
