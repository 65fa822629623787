#!/usr/bin/env bash
# Paired onboarding runs, as BENCHMARKS.md judges a change on the dev server: the old commit and the new one each in
# its own clone of this repository, PAIRS pairs at N parties, nothing else running on the machine. The order turns
# from pair to pair (old then new, new then old, …), so a drift of the machine during the runs favours neither side.
# Usage: bash bench/onboarding-pairs.sh <old-rev> <new-rev> [N=2000] [PAIRS=3]   (outputs in $OUT, default /tmp/pairs)
set -euo pipefail
cd "$(dirname "$0")/.."
old="$1" new="$2" n="${3:-2000}" pairs="${4:-3}" out="${OUT:-/tmp/pairs}"
mkdir -p "$out"
for side in old new; do
  dir="$out/clone-$side" rev="${!side}"
  [ -d "$dir" ] || git clone -q . "$dir"
  git -C "$dir" checkout -q "$rev"
  # The clones share this checkout's packages and tools (hard links): set it up first (scripts/setup.sh).
  [ -d "$dir/node_modules" ] || cp -al node_modules "$dir/"
  [ -d "$dir/.tools" ] || cp -al .tools "$dir/"
  (cd "$dir" && npm run --silent build:pages >/dev/null 2>&1 || true) # commits before the typed pages have none
done
for pair in $(seq 1 "$pairs"); do
  order="old new"; [ $((pair % 2)) -eq 0 ] && order="new old"
  for side in $order; do
    echo "pair $pair $side ${!side} $(date -u +%T)" >> "$out/log"
    (cd "$out/clone-$side" && NODE_OPTIONS=--max-old-space-size=256 \
      npm run bench:onboarding -- --parties "$n" > "$out/pair$pair-$side.out" 2> "$out/pair$pair-$side.err") \
      || echo "pair $pair $side failed (see $out/pair$pair-$side.err)" >> "$out/log"
  done
done
echo "done $(date -u +%T)" >> "$out/log"
