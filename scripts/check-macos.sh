#!/usr/bin/env bash
# Clippy, warnings as errors, over the core, the engine (llama.cpp compiled
# by Zig for macOS, with no optimisation or debug information, see
# check-windows.sh: nothing here runs it) and the
# server/CLI, for Apple silicon and Intel Macs from Linux (issue 36); the
# cross-OS step of scripts/test.sh runs it. One target: its name as the
# first argument.
# Intel Macs get the core only (its library, the sandbox launcher, tests):
# the engine and the server hold no code that differs between the two Macs,
# and llama.cpp's x86-64 code is compiled by the Windows check; compiling it
# once more would cost 4 of the cold test command's 60 minutes.
#
# Needs: `rustup target add aarch64-apple-darwin`, cargo-zigbuild (PyPI;
# brings Zig as the C compiler) on PATH, cmake, libclang.
# Left out here, for want of Apple's SDK on Linux: llama.cpp's Metal and
# Accelerate backends (they need Apple's frameworks; the release build on
# a macOS runner keeps them) and the desktop crate (its notification
# dependency compiles Objective-C against Cocoa).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export GGML_METAL=OFF GGML_ACCELERATE=OFF GGML_BLAS=OFF LLAMA_LIB_PROFILE=TypeCheck
cd "$REPO"
targets=(aarch64-apple-darwin x86_64-apple-darwin)
[[ $# -gt 0 && $1 != -* ]] && { targets=("$1"); shift; }
for target in "${targets[@]}"; do
  echo "== $target"
  packages=(-p colmena-core)
  [[ $target == aarch64-* ]] && packages+=(-p colmena-engine -p colmena-server)
  cargo-zigbuild clippy --locked --target "$target" "${packages[@]}" --all-targets "$@" -- -D warnings
done
