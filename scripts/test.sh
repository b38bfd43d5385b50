#!/usr/bin/env bash
# Every test: formatting and lints, the native tests (with the property run), the article's experiments, the
# same core tests in headless Chromium on SQLite-in-wasm, the release build, and the end-to-end tests
# (the journeys in three engines).
set -euo pipefail
source "$(dirname "$0")/env.sh"
scripts/setup.sh

# Each step says when it started (seconds since the test command began), to see where the time goes.
step() { printf '\n=== %s (at %d s)\n' "$*" "$SECONDS"; }

step "cargo fmt --all --check"
cargo fmt --all --check

step "cargo clippy (native and wasm32)"
# --all-features: the prerender's native code too (a feature, so the CLI's release build has no Yew).
cargo clippy --workspace --all-targets --all-features -- -D warnings
cargo clippy --target wasm32-unknown-unknown --workspace --all-targets -- -D warnings

step "the core depends on no browser crate (cargo tree)"
scripts/core-deps.sh

step "native tests (cargo test), the PostgreSQL ones on a throw-away server (pg_virtualenv, removed after, pass or fail)"
# fsync off: a process exit on PostgreSQL is a dropped connection, never a power cut (that is SQLite's layer).
pg_virtualenv -o fsync=off -o synchronous_commit=off cargo test --workspace --all-features

step "the article's twelve experiments on SQLite and on a PostgreSQL server the command starts, the break-it levels, and the interleavings' table"
cargo run --release --bin experiments -- --check
cargo run --release --bin experiments -- --check --store postgres
cargo run --release --bin experiments -- levels --check
cargo run --release --bin experiments -- interleave --all --store postgres

step "the guides: every relative link resolves, every experiments command parses (scripts/check-docs.mjs)"
node scripts/check-docs.mjs
step "the split's text rule on small modules, each way a string is reached (scripts/split-text-check.mjs)"
node scripts/split-text-check.mjs

step "core tests in headless Chromium (wasm32)"
cargo test --target wasm32-unknown-unknown -p outbox-core --test core

step "release build (trunk), at the root and on a sub-path"
trunk build --release
trunk build --release --public-url /blog/outbox/ --dist dist-subpath

step "end-to-end tests (Playwright Test: the deep suite in Chromium, the journeys in Chromium, Firefox, WebKit and WebKit at a phone's width; a screenshot per failure in test-results/)"
npx playwright test

printf '\n=== every test passed in %d s\n' "$SECONDS"
