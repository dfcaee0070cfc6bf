#!/usr/bin/env bash
# Checks the installers the bundler made: each holds the app binary, its
# desktop entry and its icon, and the .deb depends on WebKitGTK.
set -euo pipefail
bundle_dir=${1:?usage: check-installers.sh BUNDLE_DIR}

deb=$(ls "$bundle_dir"/deb/*.deb)
rpm=$(ls "$bundle_dir"/rpm/*.rpm)
fail() { echo "installer check failed: $*" >&2; exit 1; }

deb_files=$(dpkg-deb -c "$deb")
for path in ./usr/bin/colmena-desktop ./usr/share/applications/Colmena.desktop ./usr/share/icons/hicolor/128x128/apps/colmena-desktop.png; do
  grep -q " ${path#./}\$\| $path\$" <<<"$deb_files" || fail "$deb lacks $path"
done
dpkg-deb -f "$deb" Depends | grep -q libwebkit2gtk-4.1 || fail "$deb does not depend on WebKitGTK"

rpm_files=$(rpm -qlp "$rpm" 2>/dev/null)
for path in /usr/bin/colmena-desktop /usr/share/applications/Colmena.desktop /usr/share/icons/hicolor/128x128/apps/colmena-desktop.png; do
  grep -qx "$path" <<<"$rpm_files" || fail "$rpm lacks $path"
done

echo "ok: $(basename "$deb") and $(basename "$rpm") hold the app, its desktop entry and its icon"
