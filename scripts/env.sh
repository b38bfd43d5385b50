# Sourced by the scripts: the tools setup.sh installed, with binaryen 132's wasm-opt first on PATH
# (Debian's binaryen 108 corrupts the module; TOOLCHAIN.md).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
cd "$ROOT"
