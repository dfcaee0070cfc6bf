#!/usr/bin/env bash
# Recompresses a .deb the bundler made with xz, as Debian's own packages
# are: the bundler (tauri-cli 2.12) writes gzip and has no setting for it,
# and xz makes the package about 30 % smaller (BENCHMARKS.md). The contents,
# modes and control files stay as they were (dpkg-deb --raw-extract keeps
# them; --root-owner-group as the bundler does).
#   scripts/repack-deb.sh PACKAGE.deb
set -euo pipefail
deb=${1:?usage: repack-deb.sh PACKAGE.deb}
# The extracted tree keeps the package's modes only under a usual umask.
umask 022
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --raw-extract "$deb" "$tmp/root"
dpkg-deb --root-owner-group -Zxz -z9 --build "$tmp/root" "$tmp/repacked.deb" >/dev/null
mv "$tmp/repacked.deb" "$deb"
echo "repacked with xz: $deb ($(stat -c %s "$deb") bytes)"
