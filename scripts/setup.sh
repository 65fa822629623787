#!/usr/bin/env bash
# Idempotent set-up of a fresh clone: checks Node/npm, installs the locked npm packages, provides the pinned
# Temporal CLI (reusing one on PATH of the right version, else building it with Go into .tools/bin), and builds the
# browser pages' scripts into dist/pages.
# Usage: bash scripts/setup.sh [--test]   (--test also installs what the test suite needs)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/go.sh
. scripts/lib/go.sh

TEMPORAL_VERSION=1.5.1
say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# Node.js 20.19+ (24 LTS in production) and npm.
command -v node >/dev/null || die "Node.js is not installed (need 20.19+ or 24 LTS)"
command -v npm >/dev/null || die "npm is not installed"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || die "Node.js $(node --version) is too old: need 20.19+ (or 24 LTS)"
say "node $(node --version), npm $(npm --version 2>/dev/null)"

# npm packages, exactly as locked; skipped when node_modules was installed from this very lockfile.
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat node_modules/.installed-lock-sha256 2>/dev/null)" != "$lock_hash" ]; then
  # `npm install` rather than `npm ci`: the registry mirror here lacks other platforms' optional packages
  # (@swc/core-darwin-*, …), which `npm ci` insists on finding in the lockfile. Versions still come from the lock.
  say "installing npm packages (from package-lock.json)…"
  # The registry sometimes drops a connection (EIDLETIMEOUT, ECONNRESET): try again rather than fail the run.
  for attempt in 1 2 3; do
    npm install --no-audit --no-fund --fetch-retries=4 && break
    [ "$attempt" = 3 ] && die "npm install failed three times"
    say "npm install failed (attempt $attempt), retrying in $((attempt * 10)) s…"
    sleep $((attempt * 10))
  done
  echo "$lock_hash" > node_modules/.installed-lock-sha256
else
  say "npm packages up to date"
fi
# Packages with native parts must have built: check they load.
node -e 'require("@temporalio/core-bridge"); require("@swc/core"); require("esbuild"); require("sharp")' \
  || die "a native npm package did not build (see npm install-scripts ls)"

# The pages' scripts (TypeScript bundled by esbuild), built every time: it takes well under a second, and the API
# refuses to start on a build older than its sources.
npm run --silent build:pages >/dev/null || die "could not build the pages' scripts (see above)"
say "pages built (dist/pages)"

# Temporal CLI: $TEMPORAL_CLI, .tools/bin/temporal, or `temporal` on PATH — if it is v$TEMPORAL_VERSION.
temporal_version() { "$1" --version 2>/dev/null | sed -n 's/^temporal version \([^ ]*\).*/\1/p'; }
TOOLS_BIN="$PWD/.tools/bin"
found=""
for c in "${TEMPORAL_CLI:-}" "$TOOLS_BIN/temporal" "$(command -v temporal || true)"; do
  if [ -n "$c" ] && [ -x "$c" ] && [ "$(temporal_version "$c")" = "$TEMPORAL_VERSION" ]; then found="$c"; break; fi
done
if [ -n "$found" ]; then
  say "Temporal CLI $TEMPORAL_VERSION: $found"
else
  GO="$(go_binary)"
  [ -n "$GO" ] || die "Temporal CLI $TEMPORAL_VERSION not found and Go is not installed to build it (install Go 1.24+, or put temporal $TEMPORAL_VERSION on PATH)"
  say "building Temporal CLI $TEMPORAL_VERSION with $("$GO" version | cut -d' ' -f3) (a few minutes, once)…"
  mkdir -p "$TOOLS_BIN"
  # A stalled module download is retried rather than waited on forever.
  ok=""
  for attempt in 1 2 3; do
    # -X stamps the version, which `go install` leaves as 0.0.0-DEV, so the binary says what it is.
    if GOBIN="$TOOLS_BIN" timeout 900 "$GO" install -ldflags "-X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_VERSION" \
         "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_VERSION"; then ok=1; break; fi
    say "go install failed or stalled (attempt $attempt), retrying…"
  done
  [ -n "$ok" ] || die "could not build the Temporal CLI $TEMPORAL_VERSION with go install"
  [ "$(temporal_version "$TOOLS_BIN/temporal")" = "$TEMPORAL_VERSION" ] || die "built temporal does not report version $TEMPORAL_VERSION"
  say "Temporal CLI $TEMPORAL_VERSION: $TOOLS_BIN/temporal"
fi

if [ "${1:-}" = "--test" ]; then
  # Independent checkers the tests run on our output (Debian packages): pdftotext and pdfsig read the mandates,
  # qpdf checks their structure, xmllint validates SMP documents against the XSDs, xmlsec1 verifies their signatures,
# chromium runs the browser tests.
  need=()
  command -v pdftotext >/dev/null || need+=(poppler-utils)
  command -v qpdf >/dev/null || need+=(qpdf)
  command -v xmllint >/dev/null || need+=(libxml2-utils)
  command -v xmlsec1 >/dev/null || need+=(xmlsec1)
  # Browser tests drive Debian's chromium with playwright-core (playwright cannot download browsers here).
  [ -x /usr/bin/chromium ] || need+=(chromium)
  if [ ${#need[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "missing ${need[*]} and no apt-get to install them"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    say "installing ${need[*]} (apt)…"
    $SUDO apt-get update -qq >/dev/null || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null || die "could not install ${need[*]}"
  fi
  say "checkers: $(pdftotext -v 2>&1 | head -1); $(qpdf --version | head -1); $(xmllint --version 2>&1 | head -1); $(xmlsec1 --version)"

  # The real Temporal server (and its SQL tool) for the production-topology suite: built once, like the CLI.
  bash scripts/temporal-server-build.sh || die "could not build the Temporal server 1.29.1 (see above)"

  # The test suite needs a PostgreSQL for its storage suite when TEST_DATABASE_URL is set; nothing else yet.
  if [ -n "${TEST_DATABASE_URL:-}" ]; then
    node -e 'const {Client}=require("pg");const c=new Client({connectionString:process.env.TEST_DATABASE_URL});c.connect().then(()=>c.end()).catch(e=>{console.error(e.message);process.exit(1)})' \
      || die "TEST_DATABASE_URL is set but PostgreSQL does not answer there"
    say "PostgreSQL for the storage suite: reachable"
  fi
fi
say "ready."
