# Sourced by scripts/check-windows.sh and scripts/wine-tests.sh: the C and
# C++ cross compilers for x86_64-pc-windows-gnu (mingw-w64 with POSIX
# threads: llama.cpp uses std::mutex) and what bindgen needs to read
# llama.cpp's headers for that target. Needs REPO set.
clang_include=$(ls -d /usr/lib/llvm-*/lib/clang/*/include | sort -V | tail -1)
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
# The compilers run in build folders, so the header is named by its full
# path; CFLAGS is split at spaces, so the repository's path must have none.
[[ "$REPO" != *" "* ]] || { echo "the repository's path has a space: $REPO" >&2; exit 1; }
export CFLAGS_x86_64_pc_windows_gnu="-include $REPO/scripts/cross/mingw-compat.h"
# bindgen's clang finds neither its own headers nor mingw's for this target.
export BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu="-I$clang_include -I/usr/x86_64-w64-mingw32/include"
