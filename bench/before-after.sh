#!/usr/bin/env bash
# Runs the benchmarks on an earlier commit and on the working tree, taking turns, so that drift
# in machine load hits both alike: the relay (back to back and one event per read), held
# streams, the plant store and docs.json validation.
#
#   bench/before-after.sh <commit> [rounds]      (logs in /tmp/trellis-before-after/)
#
# The earlier commit is checked out in a worktree with its own node_modules. Each benchmark's
# own ratio (against its reference in the same run) is the figure to compare; absolute
# numbers drift with the machine. Needs wrk, and PostgreSQL at 127.0.0.1:5432 for the plant store.
set -euo pipefail
BEFORE=${1:?usage: bench/before-after.sh <commit> [rounds]}
ROUNDS=${2:-2}
HERE=$(cd "$(dirname "$0")/.." && pwd)
TREE=/tmp/trellis-before-tree
LOGS=/tmp/trellis-before-after
mkdir -p "$LOGS"
if [ ! -d "$TREE" ]; then git -C "$HERE" worktree add -f "$TREE" "$BEFORE" >/dev/null; else git -C "$TREE" checkout -q --detach "$BEFORE"; fi
(cd "$TREE" && bun install --frozen-lockfile >/dev/null)
# The raw floor must do the work of the commit under test; before the per-owner ids of the
# hardening issue it named a conflict target the schema no longer has, so both use today's.
cp "$HERE/bench/plants-floor.ts" "$TREE/bench/plants-floor.ts"

run() { # tree label name command...
  local dir=$1 label=$2 name=$3; shift 3
  echo "== $name ($label, round $round)" >&2
  (cd "$dir" && "$@") > "$LOGS/$name-$label-$round.log" 2>&1 || echo "   failed: see $LOGS/$name-$label-$round.log" >&2
}

for round in $(seq 1 "$ROUNDS"); do
  for side in before after; do
    dir=$([ "$side" = before ] && echo "$TREE" || echo "$HERE")
    run "$dir" "$side" relay bun bench/chat-relay.ts --seconds 10
    run "$dir" "$side" relay-gap bun bench/chat-relay.ts --seconds 10 --gap-ms 1
    run "$dir" "$side" held bun bench/chat-held-streams.ts
    run "$dir" "$side" plants env BENCH_ROUNDS=1 bun bench/plants.ts
    run "$dir" "$side" docs bun bench/docs-validate.ts
  done
done
echo "logs: $LOGS" >&2
