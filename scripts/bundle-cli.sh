#!/usr/bin/env bash
# The bundler's beforeBundleCommand (tauri.conf.json): builds `colmena-sandbox`
# (the launcher programs run by agents go through; the app and the CLI look
# for it next to themselves) with the profile of the app being bundled, and
# puts it and the `colmena` command (packaging/linux/colmena: the CLI is the
# desktop binary run with --colmena-cli, so the packages carry one binary)
# in src-tauri/target-cli/ (git-ignored), which
# bundle.linux.{deb,rpm,appimage}.files install in /usr/bin. `tauri build`
# sets TAURI_ENV_DEBUG=true for --debug and TAURI_ENV_TARGET_TRIPLE always.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

profile=release
args=(--locked -p colmena-core --bin colmena-sandbox)
if [[ ${TAURI_ENV_DEBUG:-} == true ]]; then profile=debug; else args+=(--release); fi
out="$CARGO_TARGET_DIR/$profile"
triple=${TAURI_ENV_TARGET_TRIPLE:-}
if [[ -n $triple && $triple != "$(rustc -vV | sed -n 's/^host: //p')" ]]; then
  args+=(--target "$triple")
  out="$CARGO_TARGET_DIR/$triple/$profile"
fi

echo "building the sandbox launcher ($profile) for the installers"
(cd "$REPO" && cargo build "${args[@]}")
install -D -m 755 "$out/colmena-sandbox" "$REPO/src-tauri/target-cli/colmena-sandbox"
install -D -m 755 "$REPO/packaging/linux/colmena" "$REPO/src-tauri/target-cli/colmena"
