#!/usr/bin/env bash
# Installs every tool the playground and its tests need, from the package registries only.
# Idempotent: each tool is skipped when it is already there at the right version.
# On a fresh machine the downloads (Debian's packages, npm) run in the background while the Rust tools compile
# in the foreground: the one waits on the network, the other on the two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132.0.0
GECKODRIVER_VERSION=0.37.1
# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly, or Trunk reaches for the network.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)

say() { printf '[setup] %s (at %d s)\n' "$*" "$SECONDS"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
logs=$(mktemp -d)
# A background download is waited for whatever way the script ends (killing dpkg halfway would be worse).
trap 'wait; rm -rf "$logs"' EXIT

apt_missing=()
command -v clang >/dev/null || apt_missing+=(clang)
command -v chromium >/dev/null || apt_missing+=(chromium)
command -v chromedriver >/dev/null || apt_missing+=(chromium-driver)
# PostgreSQL, the second store (--store postgres): its server programs and pg_virtualenv, for throw-away servers.
# Debian starts no cluster of its own in a container without init; the tests start and remove their own.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && command -v pg_virtualenv >/dev/null \
  || apt_missing+=(postgresql)
# The other two engines of the journeys (e2e/engines): Firefox ESR, and WebKitGTK's WebDriver with its
# MiniBrowser under a virtual X server; the CJK font so the Chinese page renders in every engine. Without
# recommends: that is what the tests were run with, and it skips hundreds of MiB of media plugins.
engines_missing=()
command -v firefox-esr >/dev/null || engines_missing+=(firefox-esr)
command -v WebKitWebDriver >/dev/null || engines_missing+=(webkit2gtk-driver)
command -v xvfb-run >/dev/null || engines_missing+=(xvfb xauth)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || engines_missing+=(fonts-noto-cjk)
apt_job=
if ((${#apt_missing[@]} + ${#engines_missing[@]})); then
  # sudo asks for its password here, not in the background where cargo's output would bury the prompt.
  [ "$(id -u)" = 0 ] || sudo -v
  say "apt-get install ${apt_missing[*]} ${engines_missing[*]} (in the background)"
  (
    as_root apt-get update -qq
    if ((${#apt_missing[@]})); then
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${apt_missing[@]}"
    fi
    if ((${#engines_missing[@]})); then
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${engines_missing[@]}"
    fi
  ) >"$logs/apt" 2>&1 &
  apt_job=$!
fi

# npm packages: binaryen 132 for wasm-opt (Debian's 108 corrupts the module), terser for the JS glue (the
# release build's post_build hook), @playwright/test (the end-to-end runner; it drives Debian's Chromium, so no
# `playwright install` and no browser download) with axe-core for the end-to-end tests, playwright-core for
# the benchmark scripts and the screenshots, and lighthouse 12.2.3 (the newest that runs on this Node; it uses
# Debian's Chromium too) for scripts/bench.sh.
npm_job=
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] \
   || [ ! -d node_modules/@playwright/test ] \
   || [ ! -d node_modules/terser ] || [ ! -d node_modules/lighthouse ] \
   || ! grep -q "\"version\": \"$BINARYEN_VERSION\"" node_modules/binaryen/package.json 2>/dev/null \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci (in the background)"
  npm ci --no-audit --no-fund --loglevel=error >"$logs/npm" 2>&1 &
  npm_job=$!
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The three Rust tools share one build directory, so what their dependency trees share compiles once, and are
# built without link-time optimisation and with parallel code generation: Trunk's own profile asks for fat LTO
# in one unit, minutes of linking on two cores for a tool whose speed nobody waits on.
tools() {
  CARGO_TARGET_DIR="$PWD/target/tools" CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo install "$@"
}

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "cargo install trunk $TRUNK_VERSION (a few minutes on 2 cores)"
  tools --locked trunk --version "$TRUNK_VERSION"
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Not --locked: one of its pinned dependencies is no longer on the registry (TOOLCHAIN.md).
  tools wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# Firefox's WebDriver: not in Debian, but on the crate registry; pinned, as the journeys were run with it.
if [ "$(geckodriver --version 2>/dev/null | awk 'NR == 1 {print $2}')" != "$GECKODRIVER_VERSION" ]; then
  say "cargo install geckodriver $GECKODRIVER_VERSION"
  tools --locked geckodriver --version "$GECKODRIVER_VERSION" --force
fi
# The tools' shared build directory served its one run.
rm -rf target/tools

# The background jobs, each waited for and its log shown when it failed.
wait_for() {
  local name=$1 job=$2
  [ -n "$job" ] || return 0
  if ! wait "$job"; then
    say "$name failed:"
    cat "$logs/$name" >&2
    exit 1
  fi
}
wait_for apt "$apt_job"
wait_for npm "$npm_job"
say "ready"
