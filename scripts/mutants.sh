#!/usr/bin/env bash
# Mutation testing of outbox-core (issue 40): each mutant cargo-mutants makes of the core is tested by the core's
# own tests; the ones they miss are tried again against the root package's tests (the CLI's and the playground's),
# where some are only reachable. Not part of the test command: the whole core (2,782 mutants) is hours on 2 cores,
# so it runs in shards that each fit in a sitting, and a finished shard is kept (rerun to resume).
#
#   scripts/mutants.sh                          every shard not yet done (SHARDS=8 by default), then the report
#   scripts/mutants.sh 3                        shard 3 of SHARDS only
#   scripts/mutants.sh -f core/src/experiments.rs   one file (any cargo-mutants filter), a run of its own
#
# The core's phase runs two mutants at once (JOBS), without debug info, and the property test with 1,000 random
# histories instead of 10,000 (PROPERTY_HISTORIES): a mutant takes about 4 s instead of 7. The root package's
# phase runs one at a time: its real processes are timed.
#
# Results: target/mutants/<run>/{core,workspace}/mutants.out/*.txt; `node bench/mutants-report.mjs` sums them by
# module (BENCHMARKS.md).
set -euo pipefail
source "$(dirname "$0")/env.sh"

MUTANTS_VERSION=27.1.0
if [ "$(cargo mutants --version 2>/dev/null | awk '{print $2}')" != "$MUTANTS_VERSION" ]; then
  echo "[mutants] cargo install cargo-mutants $MUTANTS_VERSION (a few minutes)"
  cargo install --locked cargo-mutants --version "$MUTANTS_VERSION"
fi
SHARDS=${SHARDS:-8}
JOBS=${JOBS:-2}
OUT=target/mutants

# Runs cargo-mutants; its exit 2 (mutants missed) and 3 (timeouts) are the findings, not a failure of this script.
findings() { "$@" || { local status=$?; [ "$status" -eq 2 ] || [ "$status" -eq 3 ]; }; }

# One run: the core's tests, then the root package's on what they missed. $1 names the run; the rest are filters.
# Each phase is marked done when it finishes, so an interrupted run resumes at the phase it was in. ROOT=0 skips
# the root package's phase (it costs about 45 s a missed mutant); the report then counts the core's misses.
run() {
  local name=$1; shift
  local dir="$OUT/$name"
  if [ ! -e "$dir/core.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    PROPERTY_HISTORIES=${PROPERTY_HISTORIES:-1000} CARGO_PROFILE_DEV_DEBUG=0 \
      findings cargo mutants -p outbox-core --test-package outbox-core --jobs "$JOBS" --output "$dir/core" "$@"
    touch "$dir/core.done"
  fi
  [ "${ROOT:-1}" = 0 ] || [ -e "$dir/done" ] && return
  local missed="$dir/core/mutants.out/missed.txt"
  if [ -s "$missed" ]; then
    # Each missed mutant by its exact name (cargo-mutants' --re matches the name as it prints it).
    local res=()
    while IFS= read -r line; do
      res+=(--re "^$(printf '%s' "$line" | sed 's#[][\\.^$*+?(){}|]#\\&#g')\$")
    done < "$missed"
    CARGO_PROFILE_DEV_DEBUG=0 \
      findings cargo mutants -p outbox-core --test-package outbox-playground --output "$dir/workspace" "${res[@]}"
  fi
  touch "$dir/done"
}

if [ $# -gt 0 ] && [ "$1" != "${1#-}" ]; then
  # Named by its filters, so that runs of different files add up in the report.
  run "only-$(printf '%s' "$*" | tr -c 'A-Za-z0-9._-' '_')" "$@"
elif [ $# -gt 0 ]; then
  run "shard-$1-of-$SHARDS" --shard "$1/$SHARDS" --sharding round-robin
else
  for ((k = 0; k < SHARDS; k++)); do
    run "shard-$k-of-$SHARDS" --shard "$k/$SHARDS" --sharding round-robin
  done
fi
node bench/mutants-report.mjs "$OUT"
