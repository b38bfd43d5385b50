#!/usr/bin/env bash
# Installs whatever is missing, then serves the playground at http://127.0.0.1:8080 (rebuilds on change).
set -euo pipefail
source "$(dirname "$0")/env.sh"
scripts/setup.sh
exec trunk serve "$@"
