# Shared settings for the scripts in this folder. Sourced, not run.

set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${COLMENA_TOOLS_DIR:-$HOME/.cache/colmena/tools}"
# One cargo target dir outside the checkout, shared by every clone on this
# machine: a fresh clone starts warm, and `cargo clean` there is always safe.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/colmena/target}"
export PATH="$TOOLS/bin:$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-always}"
# Dependencies are built without debug info; ours keep line tables.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-1}"

step() {
  printf '\n\033[1;33m==> %s\033[0m\n' "$*"
}

# Runs the Tauri CLI from the repo root (the config sits at the top level;
# src-tauri/tauri.conf.json is a symlink to it).
tauri_cli() {
  (cd "$REPO" && TAURI_APP_PATH=src-tauri TAURI_FRONTEND_PATH=ui ui/node_modules/.bin/tauri "$@")
}
