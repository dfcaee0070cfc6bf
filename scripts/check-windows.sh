#!/usr/bin/env bash
# Clippy, warnings as errors, over the workspace (every target: lib, bins,
# tests, benches) for Windows from Linux, with mingw-w64 as the C/C++ cross
# compiler (issue 36); the cross-OS step of scripts/test.sh runs it.
# llama.cpp is compiled without optimisation or debug information (a build
# type of our own, TypeCheck, whose flags CMake leaves empty): nothing here
# runs it, and it compiles in 230 s instead of 300 (Debug) on 2 cores.
#
# Needs: apt gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 (their POSIX-threads
# variants: llama.cpp uses std::mutex), `rustup target add
# x86_64-pc-windows-gnu`, libclang (bindgen), cmake.
# The bench peer `bench/empty-shell` is Linux's measuring stick: left out.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO/scripts/cross/windows-env.sh"
cd "$REPO"
export LLAMA_LIB_PROFILE=TypeCheck
cargo clippy --locked --target x86_64-pc-windows-gnu --workspace --exclude colmena-empty-shell \
  --all-targets "$@" -- -D warnings
