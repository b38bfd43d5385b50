#!/usr/bin/env bash
# Mutation testing of outbox-core (issue 40): each mutant cargo-mutants makes of the core is tested by the core's
# own tests; the ones they miss are tried again against the whole workspace's (the core's first, which may have
# grown since, then the CLI's and the playground's, from where some are only reachable). Not part of the test
# command: the whole core (about 2,700 mutants) is about 3 hours on 2 cores, so it runs in groups of modules that
# each fit in a sitting, and a finished group is kept (rerun to resume).
#
#   scripts/mutants.sh                          every group not yet done, then the report
#   scripts/mutants.sh checker                  one group (protocol, checker, reading, real, rest)
#   scripts/mutants.sh -f core/src/experiments.rs   one file (any cargo-mutants filter), a run of its own
#   NAME=recheck scripts/mutants.sh --re '^core/src/x.rs:1:2: ...$'   named mutants, as a run named recheck
#
# The core's phase runs two mutants at once (JOBS), without debug info, the property test with 1,000 random
# histories instead of 10,000 and the fuzz test with 5,000 inputs instead of 30,000: about 3.5 s a mutant, was 7.
# The second phase runs one at a time, at full strength: the root package's real processes are timed.
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
JOBS=${JOBS:-2}
# MUTANTS_OUT=target/mutants-whole keeps a run of the whole core apart from the groups' runs of older commits.
OUT=${MUTANTS_OUT:-target/mutants}

# Runs cargo-mutants; its exit 2 (mutants missed) and 3 (timeouts) are the findings, not a failure of this script.
findings() { "$@" || { local status=$?; [ "$status" -eq 2 ] || [ "$status" -eq 3 ]; }; }

# A copy of the last commit to mutate: cargo-mutants copies its source again for each job as the job starts, so
# a run on the working tree would test whatever it held at that moment (an edit half made fails every mutant).
snapshot() {
  local src; src=$(mktemp -d /tmp/outbox-mutants-src.XXXXXX)
  git rev-parse HEAD > "$src.commit"
  git archive "$(cat "$src.commit")" | tar -x -C "$src"
  printf '%s\n' "$src"
}
# The commit a snapshot holds, into a phase's mark; then the snapshot goes.
finish() { mv "$1.commit" "$2"; rm -rf "$1"; }

# One run: the core's tests, then the workspace's on what they missed. $1 names the run; the rest are filters.
# Each phase runs on the last commit and writes its commit into its mark (`core.done`, `recheck.done`, `done`),
# so an interrupted run resumes at the phase it was in, and the second phase tries what the first missed with the
# tests as they are now. PHASE2=0 skips the second phase, WORKSPACE=0 only its workspace step (about 55 s a
# mutant still missed); the report then counts the core's misses. (Not ROOT: env.sh sets that to the checkout.)
run() {
  local name=$1; shift
  local dir="$PWD/$OUT/$name" src a prev=
  # core/tests/real_runs.rs (real processes, about 7 s at 2 s a timed command) runs only for a run that mutates
  # real/ by name: elsewhere the protocol's own tests reach the same code, and every mutant would pay for it.
  export OUTBOX_REAL_RUNS=0 OUTBOX_REAL_SECONDS=2
  local only_real=1 tests=() list=${RUN_TESTS-} t
  for a in "$@"; do
    case $prev in -f | --file) case $a in core/src/real*) OUTBOX_REAL_RUNS=1 ;; *) only_real=0 ;; esac ;; esac
    case $a in -e | --exclude | --re) only_real=0 ;; esac
    prev=$a
  done
  # A named run of real/'s files alone is tested first as the real group is.
  if [ -z "$list" ] && [ "$OUTBOX_REAL_RUNS" = 1 ] && [ "$only_real" = 1 ]; then list=${TESTS[real]}; fi
  for t in $list; do
    if [ "$t" = lib ]; then tests+=(--cargo-arg=--lib); else tests+=(--cargo-arg=--test="$t"); fi
  done
  if [ ! -e "$dir/core.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    # The report reads which files a run mutated whole (a later run of a file replaces earlier runs' word on it).
    printf '%s\n' "$@" > "$dir/filters"
    src=$(snapshot)
    PROPERTY_HISTORIES=${PROPERTY_HISTORIES:-1000} FUZZ_INPUTS=${FUZZ_INPUTS:-5000} CARGO_PROFILE_DEV_DEBUG=0 \
      findings cargo mutants -d "$src" -p outbox-core --test-package outbox-core --jobs "$JOBS" --output "$dir/core" \
      "${tests[@]}" "$@"
    finish "$src" "$dir/core.done"
  fi
  if [ "${PHASE2:-1}" = 0 ] || [ -e "$dir/done" ]; then return; fi
  # What the first phase missed, by exact name (cargo-mutants' --re matches the name as it prints it), within the
  # run's own file filters (27.1 lets every "delete field" mutant through --re): first the core's tests again,
  # two at a time (they may have grown since), then every test of the workspace on what those still miss.
  local files=() args=("$@") k
  for ((k = 0; k + 1 < ${#args[@]}; k++)); do
    case ${args[k]} in -f | -e | --file | --exclude) files+=("${args[k]}" "${args[k + 1]}") ;; esac
  done
  names() {
    local line
    while IFS= read -r line; do
      printf '%s\n' --re "^$(printf '%s' "$line" | sed 's#[][\\.^$*+?(){}|]#\\&#g')\$"
    done < "$1"
  }
  local missed="$dir/core/mutants.out/missed.txt" res
  if [ -s "$missed" ] && [ ! -e "$dir/recheck.done" ]; then
    mapfile -t res < <(names "$missed")
    src=$(snapshot)
    PROPERTY_HISTORIES=${PROPERTY_HISTORIES:-1000} FUZZ_INPUTS=${FUZZ_INPUTS:-5000} CARGO_PROFILE_DEV_DEBUG=0 \
      findings cargo mutants -d "$src" -p outbox-core --test-package outbox-core --jobs "$JOBS" \
      --output "$dir/recheck" "${files[@]}" "${res[@]}"
    finish "$src" "$dir/recheck.done"
  fi
  [ -e "$dir/recheck.done" ] && missed="$dir/recheck/mutants.out/missed.txt"
  [ "${WORKSPACE:-1}" = 0 ] && return
  if [ -s "$missed" ]; then
    mapfile -t res < <(names "$missed")
    src=$(snapshot)
    CARGO_PROFILE_DEV_DEBUG=0 \
      findings cargo mutants -d "$src" -p outbox-core --test-workspace=true --output "$dir/workspace" "${files[@]}" "${res[@]}"
    finish "$src" "$dir/done"
  else
    git rev-parse HEAD > "$dir/done"
  fi
}

# Each group's first phase builds and runs only the core's test binaries that caught its mutants in the runs
# before (`lib` is the unit tests): checker.rs, the longest at 2 s, never caught one of `reading`'s, and only
# real.rs and real_runs.rs reach real/. What they miss, the recheck tries with every test of the core.
declare -A TESTS=(
  [protocol]="lib core checker diagram playground explain messages"
  [checker]="lib checker core playground explain messages"
  [reading]="lib diagram explain messages explorer core"
  [real]="lib real real_runs"
  [rest]="lib core playground checker diagram"
)

# The core in five groups of 450-620 mutants, each about 35-45 minutes of the core's phase here; `rest` is
# whatever the others leave, so a new file is never left out.
GROUP_NAMES=(protocol checker reading real rest)
declare -A FILES=(
  [protocol]="core/src/protocol/** core/src/trace/** core/src/experiments.rs"
  [checker]="core/src/checker/**"
  [reading]="core/src/diagram/** core/src/explain/** core/src/explorer.rs core/src/lang/** core/src/words.rs"
  [real]="core/src/real/**"
)
filters() {
  local flag=-f globs=${FILES[$1]:-}
  if [ "$1" = rest ]; then flag=-e; globs="${FILES[*]}"; fi
  for g in $globs; do printf '%s\n' "$flag" "$g"; done
}
set -f # the globs are cargo-mutants', not the shell's

if [ $# -gt 0 ] && [ "$1" != "${1#-}" ]; then
  # Named by its filters (or NAME), so that runs of different files add up in the report.
  run "${NAME:-only-$(printf '%s' "$*" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-80)}" "$@"
elif [ $# -gt 0 ]; then
  [ "$1" = rest ] || [ -n "${FILES[$1]:-}" ] || { echo "mutants.sh: no group '$1' (${GROUP_NAMES[*]})" >&2; exit 2; }
  mapfile -t args < <(filters "$1")
  RUN_TESTS=${TESTS[$1]} run "$1" "${args[@]}"
else
  for group in "${GROUP_NAMES[@]}"; do
    mapfile -t args < <(filters "$group")
    RUN_TESTS=${TESTS[$group]} run "$group" "${args[@]}"
  done
fi
node bench/mutants-report.mjs "$OUT"
