#!/usr/bin/env bash
# Checks the installers the bundler made: each holds the app binary (which is
# also the CLI), the `colmena` command, the sandbox launcher, its desktop entry and its icon at every
# size, and the .deb depends on WebKitGTK. Then installs the .deb for real (as
# root): the desktop entry is valid and claims colmena://, the icons are in
# the hicolor theme, the CLI runs from the PATH; and removes the package
# again (also when a check fails): its files go, the user's data stays.
set -euo pipefail
bundle_dir=${1:?usage: check-installers.sh BUNDLE_DIR}

deb=$(realpath "$(ls "$bundle_dir"/deb/*.deb)")
rpm=$(ls "$bundle_dir"/rpm/*.rpm)
fail() { echo "installer check failed: $*" >&2; exit 1; }
icons=()
for size in 16x16 24x24 32x32 48x48 64x64 128x128 256x256 512x512; do
  icons+=("/usr/share/icons/hicolor/$size/apps/colmena-desktop.png")
done
wanted=(/usr/bin/colmena-desktop /usr/bin/colmena /usr/bin/colmena-sandbox /usr/share/applications/Colmena.desktop "${icons[@]}")

deb_files=$(dpkg-deb -c "$deb")
for path in "${wanted[@]}"; do
  grep -q " \.$path\$\| ${path#/}\$" <<<"$deb_files" || fail "$deb lacks $path"
done
dpkg-deb -f "$deb" Depends | grep -q libwebkit2gtk-4.1 || fail "$deb does not depend on WebKitGTK"

rpm_files=$(rpm -qlp "$rpm" 2>/dev/null)
for path in "${wanted[@]}"; do
  grep -qx "$path" <<<"$rpm_files" || fail "$rpm lacks $path"
done

[[ $(id -u) -eq 0 ]] || fail "installing $deb needs root"
package=$(dpkg-deb -f "$deb" Package)
tmp=$(mktemp -d)
trap 'dpkg -r "$package" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1 ||
  { cat "$tmp/apt.log" >&2; fail "apt-get could not install $deb"; }
# A user's PATH and a fresh home and workspace: nothing of this machine's.
in_clean_env() { env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp" COLMENA_DATA_DIR="$tmp/data" "$@"; }
[[ $(in_clean_env sh -c 'command -v colmena') == /usr/bin/colmena ]] || fail "colmena is not on the PATH after installing $deb"
version=$(in_clean_env colmena --version) && [[ $version == "colmena "* ]] || fail "colmena --version failed: $version"
help=$(in_clean_env colmena mcp --help) && [[ $help == *"Usage: colmena mcp"* ]] || fail "colmena mcp --help failed"
# One binary: `colmena` is a few lines handing the command line to the app's
# binary, and what it tells an AI client to start is `colmena`, not the app.
[[ $(stat -c %s /usr/bin/colmena) -lt 1024 ]] || fail "/usr/bin/colmena is not the small launcher of packaging/linux/colmena"
added=$(in_clean_env colmena mcp config --client claude-code 2>/dev/null) &&
  [[ $added == *"-- /usr/bin/colmena mcp"* ]] || fail "colmena mcp config does not name /usr/bin/colmena: $added"
entry=/usr/share/applications/Colmena.desktop
desktop-file-validate "$entry" || fail "$entry is not a valid desktop entry"
grep -qx 'MimeType=x-scheme-handler/colmena;' "$entry" || fail "$entry does not claim colmena://"
grep -qx 'Exec=colmena-desktop %u' "$entry" || fail "$entry does not hand the link to the app: $(grep ^Exec= "$entry")"
grep -q '^x-scheme-handler/colmena=.*Colmena.desktop' /usr/share/applications/mimeinfo.cache ||
  fail "colmena:// is not in the desktop's MIME cache after installing $deb"
for icon in "${icons[@]}"; do
  size=$(identify -format '%wx%h' "$icon") && [[ $icon == */$size/* ]] || fail "$icon is not ${icon#*/hicolor/}"
done
# The installed CLI finds the launcher next to itself: programs agents run are confined.
doctor=$(in_clean_env colmena doctor 2>&1) || true
[[ $doctor == *"sandbox: programs run by agents are confined with"*"/usr/bin/colmena-sandbox"* ]] ||
  fail "the installed colmena does not find its sandbox launcher: $doctor"
[[ -f $tmp/data/colmena.db ]] || fail "the installed colmena made no workspace in $tmp/data"
dpkg -r "$package" >/dev/null || fail "dpkg -r $package failed"
for path in /usr/bin/colmena /usr/bin/colmena-desktop "$entry" "${icons[@]}"; do
  [[ ! -e $path ]] || fail "$path is still there after dpkg -r $package"
done
! grep -q '^x-scheme-handler/colmena=' /usr/share/applications/mimeinfo.cache 2>/dev/null ||
  fail "colmena:// is still registered after dpkg -r $package"
[[ -f $tmp/data/colmena.db ]] || fail "dpkg -r $package touched the user's data ($tmp/data)"

echo "ok: $(basename "$deb") and $(basename "$rpm") hold the app, the CLI, the sandbox launcher, its desktop entry and its icon at 8 sizes; the .deb registers colmena://, installs a colmena that runs and finds its sandbox, and removes cleanly, leaving the user's data"
