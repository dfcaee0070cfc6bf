#!/usr/bin/env bash
# Builds the release installers: .deb and .rpm here; AppImage too where the
# bundler can download its tools (pass --appimage).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$REPO/scripts/setup.sh"
bundles=deb,rpm
[[ ${1:-} == --appimage ]] && bundles=deb,rpm,appimage
step "Release build and installers ($bundles)"
tauri_cli build --bundles "$bundles"
"$REPO/scripts/repack-deb.sh" "$(ls -t "$CARGO_TARGET_DIR"/release/bundle/deb/*.deb | head -1)"
ls -l "$CARGO_TARGET_DIR/release/bundle/"*/
