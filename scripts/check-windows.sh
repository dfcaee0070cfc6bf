#!/usr/bin/env bash
# Type-checks the workspace (every target: lib, bins, tests, benches) for
# Windows from Linux, with mingw-w64 as the C/C++ cross compiler (issue 36).
# Not yet a step of scripts/test.sh: its cold time (llama.cpp compiled a
# second time, for mingw) is measured first against the 60-minute budget.
#
# Needs: apt gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 (their POSIX-threads
# variants: llama.cpp uses std::mutex), `rustup target add
# x86_64-pc-windows-gnu`, libclang (bindgen), cmake.
# The bench peer `bench/empty-shell` is Linux's measuring stick: left out.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
clang_include=$(ls -d /usr/lib/llvm-*/lib/clang/*/include | sort -V | tail -1)
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
# The compilers run in build folders, so the header is named by its full
# path; CFLAGS is split at spaces, so the repository's path must have none.
[[ "$REPO" != *" "* ]] || { echo "the repository's path has a space: $REPO" >&2; exit 1; }
export CFLAGS_x86_64_pc_windows_gnu="-include $REPO/scripts/cross/mingw-compat.h"
# bindgen's clang finds neither its own headers nor mingw's for this target.
export BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu="-I$clang_include -I/usr/x86_64-w64-mingw32/include"
cd "$REPO"
cargo check --locked --target x86_64-pc-windows-gnu --workspace --exclude colmena-empty-shell --all-targets "$@"
