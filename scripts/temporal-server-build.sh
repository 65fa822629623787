#!/usr/bin/env bash
# Builds, once, the real Temporal server and its SQL tool at the pinned version (the release the CLI 1.5.1 embeds)
# into .tools/bin (temporal-server, temporal-sql-tool), and copies its PostgreSQL schema files next to them
# (.tools/temporal-server-schema/postgresql/v12/{temporal,visibility}/versioned), so that nothing at test time needs
# Go or the module cache (bin/stack/temporal-server.ts reads both from there).
# Usage: bash scripts/temporal-server-build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/go.sh
. scripts/lib/go.sh

SERVER_VERSION=1.29.1
MODULE=go.temporal.io/server
TOOLS_BIN="$PWD/.tools/bin"
SCHEMA_DIR="$PWD/.tools/temporal-server-schema"
STAMP="$TOOLS_BIN/temporal-server.version"
say() { printf '[temporal-server-build] %s\n' "$*"; }
die() { printf '[temporal-server-build] ERROR: %s\n' "$*" >&2; exit 1; }

# Both binaries print "… version X" for --version (urfave/cli); the stamp says they were built and copied together.
reports() { "$1" --version 2>/dev/null | grep -q "version $SERVER_VERSION\b"; }
if [ "$(cat "$STAMP" 2>/dev/null)" = "$SERVER_VERSION" ] && reports "$TOOLS_BIN/temporal-server" \
   && reports "$TOOLS_BIN/temporal-sql-tool" && [ -d "$SCHEMA_DIR/postgresql/v12/visibility/versioned" ]; then
  say "Temporal server $SERVER_VERSION: $TOOLS_BIN/temporal-server (cached)"
  say "schema: $SCHEMA_DIR/postgresql/v12"
  exit 0
fi

GO="$(go_binary)"
[ -n "$GO" ] || die "Go is not installed (need Go 1.24+ on PATH or in /usr/local/go) to build the Temporal server $SERVER_VERSION"
say "building Temporal server $SERVER_VERSION and its SQL tool with $("$GO" version | cut -d' ' -f3) (several minutes, once)…"
mkdir -p "$TOOLS_BIN"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# The module source first (it holds the schema files); a stalled download is killed and retried, not waited on.
mod_dir=""
why=""
for attempt in 1 2 3; do
  rc=0
  json="$(timeout 600 "$GO" mod download -json "$MODULE@v$SERVER_VERSION" 2>"$out/download.err")" || rc=$?
  if [ "$rc" = 0 ]; then
    mod_dir="$(printf '%s' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
    break
  fi
  # go mod download -json reports its error in the JSON (stdout), not on stderr.
  why="$(printf '%s' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",*$/\1/p')"
  [ -n "$why" ] || why="$(tail -3 "$out/download.err")"
  [ "$rc" = 124 ] && why="stalled: not done after 600 s"
  say "go mod download failed (attempt $attempt): $why"
done
[ -n "$mod_dir" ] || die "could not download $MODULE@v$SERVER_VERSION (GOPROXY=$("$GO" env GOPROXY)): $why"
[ -d "$mod_dir/schema/postgresql/v12/temporal/versioned" ] || die "no schema/postgresql/v12 in the module source at $mod_dir"
say "module source: $mod_dir (module cache $("$GO" env GOMODCACHE))"

# Into a temporary GOBIN, renamed afterwards: `go install` names them server and sql, which say too little in .tools/bin.
ok=""
for attempt in 1 2 3; do
  rc=0
  GOBIN="$out" timeout 1800 "$GO" install "$MODULE/cmd/server@v$SERVER_VERSION" "$MODULE/cmd/tools/sql@v$SERVER_VERSION" \
    2>"$out/build.err" || rc=$?
  [ "$rc" = 0 ] && { ok=1; break; }
  [ "$rc" = 124 ] && echo "stalled: not done after 1800 s" >>"$out/build.err"
  say "go install failed (attempt $attempt): $(tail -5 "$out/build.err")"
done
[ -n "$ok" ] || die "could not build the Temporal server $SERVER_VERSION with go install: $(tail -20 "$out/build.err")"
mv -f "$out/server" "$TOOLS_BIN/temporal-server"
mv -f "$out/sql" "$TOOLS_BIN/temporal-sql-tool"
reports "$TOOLS_BIN/temporal-server" || die "built temporal-server does not report version $SERVER_VERSION"
reports "$TOOLS_BIN/temporal-sql-tool" || die "built temporal-sql-tool does not report version $SERVER_VERSION"

# The module cache is read-only and may be cleaned (go clean -modcache): copy the schema files, writable.
rm -rf "$SCHEMA_DIR"
mkdir -p "$SCHEMA_DIR/postgresql"
cp -R "$mod_dir/schema/postgresql/v12" "$SCHEMA_DIR/postgresql/"
chmod -R u+w "$SCHEMA_DIR"
echo "$SERVER_VERSION" > "$STAMP"
say "Temporal server $SERVER_VERSION: $TOOLS_BIN/temporal-server, SQL tool: $TOOLS_BIN/temporal-sql-tool"
say "schema: $SCHEMA_DIR/postgresql/v12 (from $mod_dir/schema)"
