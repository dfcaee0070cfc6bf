#!/usr/bin/env bash
# Type-checks the core, the engine (llama.cpp compiled by Zig for macOS)
# and the server/CLI for Apple silicon from Linux (issue 36). Not yet a
# step of scripts/test.sh (its cold time is measured first).
#
# Needs: `rustup target add aarch64-apple-darwin`, cargo-zigbuild (PyPI;
# brings Zig as the C compiler) on PATH, cmake, libclang.
# Left out here, for want of Apple's SDK on Linux: llama.cpp's Metal and
# Accelerate backends (they need Apple's frameworks; the release build on
# a macOS runner keeps them) and the desktop crate (its notification
# dependency compiles Objective-C against Cocoa).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export GGML_METAL=OFF GGML_ACCELERATE=OFF GGML_BLAS=OFF
cd "$REPO"
target=${1:-aarch64-apple-darwin}
shift || true
cargo-zigbuild check --locked --target "$target" -p colmena-core -p colmena-engine -p colmena-server --all-targets "$@"
