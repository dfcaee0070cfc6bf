#!/usr/bin/env bash
# The Windows build, run (issue 36): test files cross-built for
# x86_64-pc-windows-gnu and run under Wine, so the Windows code of the core
# and the server runs — SQLite, tantivy, the vault's key file, loopback
# sockets, the HTTP server, named pipes, Job Objects:
#   - the core's one-app-per-workspace handover over a named pipe
#     (single_instance, its squatter and wrong-key tests included), the
#     programs agents run (sandbox::windows_tests: the workspace, a cleared
#     environment, a timeout; toolbox::gate: a person decides every call),
#     the file tools (files::windows_tests, all but the link test: Wine 8
#     shows a link as what it points to),
#     the supervised-program tree (process_tree: input, output and exit
#     code through the launcher, a stop and the app's death end the tree),
#     and a run whose `cli_exec` asks a person every time, saying what is
#     not confined (permissions: an_unconfined_program…);
#   - the Windows calls of colmena-win32: this user's SID, the launch
#     pipe's owner-only access list read back, private files and folders
#     that grant nobody else and are only ever new, a job's processes
#     listed and ended when it closes; and the core's program limits
#     (limits_tests). Wine cannot check the rest (the release workflow's
#     Windows runner does): Wine 8 keeps no access list on files (it reads
#     one back made from the Unix mode bits, and a folder's is not passed
#     on to what is made in it), reports a job's limits as zeros and
#     enforces none of them — the tests skipped below by name;
#   - the bus's REST contract suite and MCP over HTTP (http_bus, http_mcp),
#     `colmena.exe serve` (serve) and the MCP-server commands, among them
#     `colmena.exe mcp-server test` starting `colmena.exe mcp` as a stdio
#     MCP server in its Job Object (cli_mcp_server) — the same test files
#     the Linux build passes;
#   - then `colmena.exe agent run` on the scripted provider (run natively
#     on loopback), with a tool call.
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
# Wine 8.0 (Debian 12) lacks bcryptprimitives.dll, where Rust's standard
# library gets random bytes on Windows (ProcessPrng): a one-function DLL of
# our own gives it the system generator's bytes through bcrypt.dll. It goes
# where Windows keeps its own (programs started with a cleared environment,
# as the sandbox starts them, must find it too).
system32="$WINEPREFIX/drive_c/windows/system32"
if [[ ! -f $system32/bcryptprimitives.dll || $REPO/scripts/cross/bcryptprimitives.c -nt $system32/bcryptprimitives.dll ]]; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$system32/bcryptprimitives.dll" \
    "$REPO/scripts/cross/bcryptprimitives.c" "$REPO/scripts/cross/bcryptprimitives.def" -lbcrypt
fi
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
# Wine's own processes (wineserver, services.exe…) end with the script.
trap 'wineserver -k 2>/dev/null || true' EXIT
agent_run=1
if [[ ${1:-} == --no-agent-run ]]; then agent_run=0; shift; fi
cd "$REPO"
win=(--locked --target x86_64-pc-windows-gnu)
# Every build below selects the core and the server together: cargo picks
# a dependency's features from the packages selected, so the core alone
# would compile its whole tree a second time with other features.
both=(-p colmena-core -p colmena-server -p colmena-win32)
echo "== the core: the launch pipe, programs agents run, the gate, the supervised-program tree"
# The sandbox's tests start the launcher, which a library's tests do not
# build; colmena.exe is for the agent run below.
cargo build "${win[@]}" "${both[@]}" --bin colmena-sandbox --bin colmena
# Not the link test: Wine 8 shows a link as what it points to.
cargo test "${win[@]}" "${both[@]}" --lib "$@" -- single_instance sandbox::windows_tests \
  sandbox::limits_tests toolbox::gate toolbox::builtins::files::windows_tests llm::local::memory \
  sddl:: job_limits:: windows::tests:: \
  --skip toolbox::builtins::files::windows_tests::a_link_out_of_the_workspace_is_never_followed \
  --skip windows::tests::a_private_ --skip windows::tests::a_job_holds_the_limits \
  --skip windows::tests::a_job_full_of_processes
cargo test "${win[@]}" "${both[@]}" --test process_tree "$@"
# A run's approval: what is not confined, and never "allow for this run".
cargo test "${win[@]}" "${both[@]}" --test permissions "$@" -- an_unconfined_program
echo "== the server: the bus's REST contract, MCP over HTTP, serve, MCP servers"
cargo test "${win[@]}" "${both[@]}" \
  --test http_bus --test http_mcp --test serve --test cli_mcp_server "$@"

((agent_run)) || exit 0
echo
echo "== colmena.exe agent run, on the scripted provider, with a tool call"
cargo build --locked --quiet -p colmena-scripted-llm
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
exe="$target_dir/x86_64-pc-windows-gnu/debug/colmena.exe"
work=$(mktemp -d)
llm_pid=""
cleanup() {
  [[ -n $llm_pid ]] && kill "$llm_pid" 2>/dev/null
  rm -rf "$work"
  wineserver -k 2>/dev/null || true
}
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
