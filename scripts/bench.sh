#!/usr/bin/env bash
# Measures every figure of BENCHMARKS.md in one run and rewrites BENCHMARKS.md. Not part of the test command.
set -euo pipefail
source "$(dirname "$0")/env.sh"
scripts/setup.sh
# The figures this run replaces, to print beside the new ones.
cp BENCHMARKS.md target/bench-previous.md 2>/dev/null || true
trunk build --release
# Native SQLite with the page's 1 KiB pages, so "wasm vs native" compares the same storage work (the other
# differences: the page's SQLite omits statements the protocol never runs, and is compiled for size).
LIBSQLITE3_FLAGS="-DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_DEFAULT_PAGE_SIZE=1024" \
  cargo run --quiet --profile bench-native --bin bench > target/bench-native.json
node bench/browser.mjs > target/bench-browser.json
node bench/lighthouse.mjs > target/bench-lighthouse.json
# The checker, natively (release build): the default configuration on one thread and on all of them (the
# counts must agree), and the largest configuration with its peak memory.
cargo build --quiet --release --bin experiments
for threads in 1 "$(nproc)"; do
  target/release/experiments check --flows 2 --events 3 --resends 1 --crashes 1 --threads "$threads" --json \
    > "target/bench-check-$threads.json"
done
cp "target/bench-check-$(nproc).json" target/bench-check-all.json
target/release/experiments check --flows 3 --events 3 --resends 1 --crashes 1 --json > target/bench-check-large.json
target/release/experiments check --flows 3 --events 3 --resends 1 --crashes 1 --symmetry --json \
  > target/bench-check-large-symmetry.json
# The reader's rule (RULE.md): the strict rule against the built-in strict on the default configuration, one
# thread, five of each alternating (target/bench-rule-*.json, read by bench/report.mjs).
target/release/experiments rule strict > target/bench-strict-rule.sql
for i in 1 2 3 4 5; do
  target/release/experiments check --threads 1 --json > "target/bench-rule-builtin-$i.json"
  target/release/experiments check --threads 1 --rule target/bench-strict-rule.sql --json > "target/bench-rule-$i.json"
done
# The checker in the page: the default configuration clicked, and one vs two workers at once.
node bench/checker-page.mjs > target/bench-check-page.json
# Every engine side by side: Chromium, Firefox ESR and WebKitGTK over their own WebDrivers (bench/engines.mjs).
# A missing driver or a stuck engine leaves the other figures to be written without this section.
node bench/engines.mjs > target/bench-engines.json || rm -f target/bench-engines.json
# The break-it levels: a hint's first press and the proof, in Chromium and WebKit (BENCHMARKS.md's issue 56 section,
# written by hand from this file).
node bench/levels.mjs > target/bench-levels.json || rm -f target/bench-levels.json
# Real processes on real files: the kill -9 soak at the size of the issue's goal (60 s, 4 workers).
rm -rf target/bench-soak
cargo run --quiet --release --bin experiments -- soak --dir target/bench-soak --seconds 60 --workers 4 \
  --flows 5000 --seed 2026 > target/bench-soak.txt
node bench/report.mjs target/bench-native.json target/bench-browser.json BENCHMARKS.md target/bench-soak.txt \
  target/bench-check-1.json target/bench-check-all.json target/bench-check-large.json \
  target/bench-check-large-symmetry.json target/bench-check-page.json target/bench-previous.md \
  target/bench-lighthouse.json target/bench-engines.json > /dev/null
echo "wrote BENCHMARKS.md"
