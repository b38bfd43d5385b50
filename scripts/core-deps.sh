#!/usr/bin/env bash
# "The core never touches the browser", checked on every target: outbox-core's dependency tree (native and
# wasm32, normal dependencies) names no Yew, web-sys or gloo crate, and on wasm32 js-sys is reached only through
# SQLite's own wasm port (sqlite-wasm-rs), never by the core itself.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
for target in "" "--target wasm32-unknown-unknown"; do
  # shellcheck disable=SC2086
  tree=$(cargo tree -p outbox-core -e normal $target --prefix none)
  if grep -E '^(yew|web-sys|gloo|wasm-bindgen-futures) ' <<<"$tree"; then
    echo "outbox-core ${target:-(native)} depends on a browser crate (above)" >&2
    fail=1
  fi
  # shellcheck disable=SC2086
  users=$(cargo tree -p outbox-core -e normal $target -i js-sys --depth 1 --prefix none 2>/dev/null | tail -n +2 || true)
  if grep -vE '^(sqlite-wasm-rs|js-sys) ' <<<"$users" | grep -q .; then
    echo "js-sys is used by more than SQLite's wasm port in outbox-core ${target:-(native)}:" >&2
    echo "$users" >&2
    fail=1
  fi
done
# The page has no PostgreSQL client: the page's own tree for wasm32, every feature on, names none.
page=$(cargo tree -p outbox-playground -e normal --target wasm32-unknown-unknown --all-features --prefix none)
if grep -E '^(postgres|tokio-postgres|tokio) ' <<<"$page"; then
  echo "the page (wasm32) depends on a PostgreSQL client (above)" >&2
  fail=1
fi
[ "$fail" = 0 ] && echo "outbox-core: no browser crate (native and wasm32), no PostgreSQL client in wasm32"
exit "$fail"
