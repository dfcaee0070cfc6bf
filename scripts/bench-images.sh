#!/usr/bin/env bash
# Normalising a 3024×4032 JPEG for a model: Colmena's pipeline and sharp
# (libvips, from npm) on the same file, in one run. See BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/colmena/target}"
PHOTO="$CARGO_TARGET_DIR/bench-photo-3024x4032.jpg"
rm -f "$PHOTO"
(cd "$REPO" && COLMENA_BENCH_PHOTO="$PHOTO" cargo bench --locked -p colmena-core --bench image_normalize 2>/dev/null | grep '^colmena')
SHARP_DIR="$HOME/.cache/colmena/sharp-bench"
mkdir -p "$SHARP_DIR"
if [ ! -d "$SHARP_DIR/node_modules/sharp" ]; then
  (cd "$SHARP_DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent sharp@0.35)
fi
SHARP_DIR="$SHARP_DIR" node "$REPO/scripts/bench-sharp.mjs" "$PHOTO"
