#!/usr/bin/env bash
# The Windows build, run (issue 36): the server's contract test files,
# cross-built for x86_64-pc-windows-gnu and run under Wine, so the bus's
# REST routes and MCP over HTTP are exercised by the Windows code of the
# core and the server (SQLite, tantivy, the vault's key file, loopback
# sockets, the HTTP server), the same test files the Linux build passes.
# Then `colmena.exe agent run` on the scripted provider (run natively on
# loopback), with a tool call.
#
# Needs what check-windows.sh needs, plus Wine (apt wine, wine64).
# Usage: scripts/wine-tests.sh [--no-agent-run] [extra cargo test args]
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO/scripts/cross/windows-env.sh"
TOOLS="${COLMENA_TOOLS_DIR:-$HOME/.cache/colmena/tools}"
# The same llama.cpp build as check-windows.sh (one compile for both);
# nothing here runs the local engine.
export LLAMA_LIB_PROFILE=TypeCheck
# A Wine prefix of our own, made once; no Mono or Gecko prompts, no noise.
export WINEPREFIX="$TOOLS/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# mingw's C++ and threads runtime DLLs (llama.cpp is C++) are found here.
gcc_dir=$(ls -d /usr/lib/gcc/x86_64-w64-mingw32/*-posix | sort -V | tail -1)
export WINEPATH="$gcc_dir;/usr/x86_64-w64-mingw32/lib"
if [[ ! -f $WINEPREFIX/system.reg ]]; then
  echo "making the Wine prefix $WINEPREFIX"
  wineboot --init >/dev/null 2>&1 || true
  wineserver --wait || true
fi
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
agent_run=1
if [[ ${1:-} == --no-agent-run ]]; then agent_run=0; shift; fi
cd "$REPO"
cargo test --locked --target x86_64-pc-windows-gnu -p colmena-server \
  --test http_bus --test http_mcp "$@"

((agent_run)) || exit 0
echo
echo "== colmena.exe agent run, on the scripted provider, with a tool call"
cargo build --locked --quiet -p colmena-scripted-llm
cargo build --locked --quiet --target x86_64-pc-windows-gnu -p colmena-server --bin colmena
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
exe="$target_dir/x86_64-pc-windows-gnu/debug/colmena.exe"
work=$(mktemp -d)
llm_pid=""
cleanup() { [[ -n $llm_pid ]] && kill "$llm_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
# The model asks for memory_search once, then answers from its result.
cat >"$work/script.json" <<'JSON'
{"rules": [
  {"when": {"toolResults": 0}, "reply": {"type": "toolCalls", "calls": [
    {"name": "memory_search", "arguments": "{\"query\": \"bees\"}"}]}},
  {"when": {"toolResults": 1}, "reply": {"type": "text", "text": "Nothing about bees yet."}}
]}
JSON
"$target_dir/debug/colmena-scripted-llm" --script "$work/script.json" >"$work/llm.out" &
llm_pid=$!
for _ in $(seq 1 600); do grep -q listening "$work/llm.out" && break; sleep 0.1; done
base=$(sed -n 's/^listening on //p' "$work/llm.out")
[[ -n $base ]] || { echo "the scripted provider did not start" >&2; exit 1; }
colmena() { wine "$exe" --data-dir "$work/data" "$@"; }
export COLMENA_SECRET_BACKEND=file
colmena provider add Scripted --kind openai --base-url "$base/v1" --api-key sk-test-1234567890abcdef
colmena model add scripted gpt-test
colmena model default scripted/gpt-test
colmena agent add finder --system-prompt "You look things up." --tools memory_search
colmena agent run finder "What do we know about bees?" | tee "$work/run.out"
colmena --json runs list >"$work/runs.json"
python3 - "$work/runs.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))
assert runs and runs[0]["status"] == "completed", runs
print(f"run {runs[0]['id']}: {runs[0]['status']}")
PY
colmena --json runs show "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$work/runs.json")" >"$work/show.json"
python3 - "$work/show.json" <<'PY'
import json, sys
shown = json.load(open(sys.argv[1]))
text = json.dumps(shown)
assert "memory_search" in text, "the run made no tool call"
assert shown["run"]["output"] == "Nothing about bees yet.", shown["run"]
print("the run called memory_search and answered: " + shown["run"]["output"])
PY
echo "ok: colmena.exe ran an agent with a tool call under Wine"
