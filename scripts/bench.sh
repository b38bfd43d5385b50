#!/usr/bin/env bash
# Measures every figure of issue 6 in one run and rewrites BENCHMARKS.md. Not part of the test command.
set -euo pipefail
source "$(dirname "$0")/env.sh"
scripts/setup.sh
trunk build --release
cargo run --quiet --profile bench-native --bin bench > target/bench-native.json
node bench/browser.mjs > target/bench-browser.json
node bench/report.mjs target/bench-native.json target/bench-browser.json BENCHMARKS.md > /dev/null
echo "wrote BENCHMARKS.md"
