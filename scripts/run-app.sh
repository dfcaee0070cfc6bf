#!/usr/bin/env bash
# Builds Colmena and runs it. Arguments go to the app (e.g. --data-dir DIR).
# `--release` builds an optimised binary instead of a debug one.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

profile=debug
args=()
for arg in "$@"; do
  if [[ $arg == --release ]]; then profile=release; else args+=("$arg"); fi
done

"$REPO/scripts/setup.sh"

step "Building the UI and the app ($profile)"
(cd "$REPO/ui" && npm run --silent build)
if [[ $profile == release ]]; then
  (cd "$REPO" && cargo build --locked --release -p colmena-desktop -p colmena-server -p colmena-core --bins)
else
  (cd "$REPO" && cargo build --locked -p colmena-desktop -p colmena-server -p colmena-core --bins)
fi
app="$CARGO_TARGET_DIR/$profile/colmena-desktop"
echo "app: $app"
echo "cli: $CARGO_TARGET_DIR/$profile/colmena"
# Programs agents run go through the sandbox launcher next to the app.
echo "sandbox launcher: $CARGO_TARGET_DIR/$profile/colmena-sandbox"

step "Running Colmena"
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "No display: running under Xvfb on :${COLMENA_XVFB_DISPLAY:-77} (screenshot: DISPLAY=:${COLMENA_XVFB_DISPLAY:-77} import -window root shot.png)"
  # No GPU under Xvfb: Skia paints on the CPU rather than through Mesa's
  # software GL, which crashed WebKit's web process now and then.
  export WEBKIT_DISABLE_DMABUF_RENDERER=1 NO_AT_BRIDGE=1 WEBKIT_SKIA_ENABLE_CPU_RENDERING=1
  exec xvfb-run -n "${COLMENA_XVFB_DISPLAY:-77}" -s "-screen 0 1280x800x24" "$app" "${args[@]}"
fi
exec "$app" "${args[@]}"
