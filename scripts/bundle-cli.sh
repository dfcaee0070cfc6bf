#!/usr/bin/env bash
# The bundler's beforeBundleCommand (tauri.conf.json): builds the `colmena`
# CLI with the profile of the app being bundled and copies it to
# src-tauri/target-cli/colmena (git-ignored), which bundle.linux.deb.files and
# bundle.linux.rpm.files install as /usr/bin/colmena. `tauri build` sets
# TAURI_ENV_DEBUG=true for --debug and TAURI_ENV_TARGET_TRIPLE always.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

profile=release
args=(--locked -p colmena-server --bin colmena)
if [[ ${TAURI_ENV_DEBUG:-} == true ]]; then profile=debug; else args+=(--release); fi
out="$CARGO_TARGET_DIR/$profile/colmena"
triple=${TAURI_ENV_TARGET_TRIPLE:-}
if [[ -n $triple && $triple != "$(rustc -vV | sed -n 's/^host: //p')" ]]; then
  args+=(--target "$triple")
  out="$CARGO_TARGET_DIR/$triple/$profile/colmena"
fi

echo "building the colmena CLI ($profile) for the installers"
(cd "$REPO" && cargo build "${args[@]}")
install -D -m 755 "$out" "$REPO/src-tauri/target-cli/colmena"
