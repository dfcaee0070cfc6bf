#!/usr/bin/env bash
# Runs every test of Colmena, set-up included: formatting, lints, type
# checks, UI unit tests, the installers, the end-to-end tests in the real
# window, the team bus across network namespaces, the bus on PostgreSQL, and
# finally every Rust test.
#
# Every step runs even when an earlier one failed (one red step must not
# hide the others' results); the Windows and macOS steps run in the
# background beside the others (run_in_background). The output ends with
# one summary: each
# step, passed or failed, its time, then the Rust test runner's own summary
# last. The exit status is non-zero when any step failed.
#
#   ./scripts/test.sh                      # everything
#   TEST_STEPS=fmt,clippy ./scripts/test.sh  # only these steps (ids below)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
started=$SECONDS
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

step_names=()
step_status=()
step_seconds=()

# Runs step function `fn` as step `id` ("name" in the output) in a subshell
# with errexit on, so a failing command ends that step and only that step.
# `TEST_STEPS` (comma-separated ids) picks steps; the others are skipped.
run_step() { # id name fn
  local id=$1 name=$2 fn=$3
  if [[ -n ${TEST_STEPS:-} && ",$TEST_STEPS," != *",$id,"* ]]; then
    return 0
  fi
  step "$name"
  local begun=$SECONDS status
  set +e
  (
    set -euo pipefail
    "$fn"
  )
  status=$?
  set -e
  step_names+=("$name")
  step_seconds+=($((SECONDS - begun)))
  if ((status == 0)); then
    step_status+=(passed)
  else
    step_status+=(failed)
    printf '\033[1;31m!!! step failed (exit %s): %s\033[0m\n' "$status" "$name"
  fi
}

setup() { "$REPO/scripts/setup.sh"; }

formatting() { cd "$REPO" && cargo fmt --all --check; }

layering() {
  local forbidden
  if forbidden=$(cd "$REPO" && cargo tree --locked -p colmena-core -e normal,build --prefix none | grep -E '^(tauri|wry|webkit2gtk|gtk|axum|rmcp)[- ]'); then
    echo "colmena-core must not depend on: $forbidden" >&2
    return 1
  fi
  echo "ok: no tauri, wry, webkit2gtk, gtk, axum or rmcp under colmena-core"
}

ui() {
  cd "$REPO/ui"
  npm run --silent typecheck
  npm run --silent lint
  npm run --silent test
  npm run --silent build
}

clippy() { cd "$REPO" && cargo clippy --workspace --all-targets --locked -- -D warnings; }

# Windows and macOS from Linux (issue 36): the same clippy, for their
# targets, with their cross C compilers (setup.sh installs them). Run in
# the background (see run_in_background).
other_oses() {
  export PATH="$TOOLS/cross-venv/bin:$PATH"
  "$REPO/scripts/check-windows.sh"
  "$REPO/scripts/check-macos.sh"
}

# The Windows build run under Wine (issue 36): the bus's REST contract, MCP
# over HTTP and stdio, serve, the launch pipe, Job Objects, programs agents
# run, and an agent run with a tool call (scripts/wine-tests.sh).
windows_under_wine() { "$REPO/scripts/wine-tests.sh"; }

app_built="$results/app-built"
installers() {
  tauri_cli build --debug --bundles deb,rpm
  touch "$app_built"
  "$REPO/tests/packaging/check-installers.sh" "$CARGO_TARGET_DIR/debug/bundle"
}

export COLMENA_APP="$CARGO_TARGET_DIR/debug/colmena-desktop"
export COLMENA_CLI="$CARGO_TARGET_DIR/debug/colmena"
export COLMENA_SCRIPTED_LLM="$CARGO_TARGET_DIR/debug/colmena-scripted-llm"
export COLMENA_E2E_SCREENSHOTS="${COLMENA_E2E_SCREENSHOTS:-$REPO/tests/e2e/screenshots}"
export COLMENA_MCP_PYTHON="$TOOLS/mcp-venv/bin/python"
# The real small model the local engine is tested on (setup.sh puts it there).
export COLMENA_TEST_GGUF="$TOOLS/models/SmolLM2-135M-Instruct.Q4_1.gguf"

binaries() {
  cd "$REPO"
  # The app of this checkout (never one an earlier run left in the shared
  # target dir), without bundling when the installers step did not build it.
  [[ -e $app_built ]] || { tauri_cli build --debug --no-bundle && touch "$app_built"; }
  # The whole workspace's programs (the app's build is the same one: its
  # page is embedded by default). Cargo picks a dependency's features from
  # the packages selected; the workspace's choice is the one the app's
  # build and the Rust tests make too, so nothing is compiled twice (the
  # server and the core alone would build ~30 crates' trees again).
  cargo build --locked --workspace --bins
}

e2e() {
  binaries
  cd "$REPO/tests/e2e"
  xvfb-run -a -s "-screen 0 1280x800x24" npm test
  echo "screenshots saved in $COLMENA_E2E_SCREENSHOTS"
}

bench_app() { xvfb-run -a -s "-screen 0 1280x800x24" "$REPO/scripts/bench-app.sh" --quick; }

mcp_inspector() {
  binaries
  local mcp_tmp tools
  mcp_tmp=$(mktemp -d)
  tools=$(cd "$REPO/tests/mcp" && HOME="$mcp_tmp" MCP_CATALOG_PATH="$mcp_tmp/catalog.json" \
    node_modules/.bin/mcp-inspector --cli "$COLMENA_CLI" --data-dir "$mcp_tmp/data" mcp --method tools/list |
    node -e 'for (const t of JSON.parse(require("fs").readFileSync(0, "utf8")).tools) console.log(t.name)')
  rm -rf "$mcp_tmp"
  local tool
  for tool in session_create session_list_sources send_message read_inbox list_sent run_agent; do
    grep -qx "$tool" <<<"$tools" || { echo "tools/list lacks $tool; it lists: ${tools//$'\n'/ }" >&2; return 1; }
  done
  echo "ok: $(wc -l <<<"$tools") tools, among them session_create, session_list_sources, send_message, read_inbox, list_sent, run_agent"
}

team_bus() {
  binaries
  "$REPO/tests/netns/team-bus.sh"
}

# The throwaway PostgreSQL cluster the two PostgreSQL steps share; started
# by the first of them that runs, stopped when this script exits.
pg_env="$results/postgres"
pg_dir=""
start_postgres() {
  [[ -s $pg_env ]] && return 0
  local started_pg
  started_pg=$("$REPO/tests/postgres/start.sh") || return 1
  pg_dir=$(sed -n 2p <<<"$started_pg")
  trap '"$REPO/tests/postgres/stop.sh" "$pg_dir"; rm -rf "$results"' EXIT
  printf '%s\n' "$started_pg" >"$pg_env"
  echo "listening at $(head -1 "$pg_env") (data in $pg_dir)"
}
with_postgres() { # the steps below run with the cluster's URL and CA
  [[ -s $pg_env ]] || { echo "the throwaway PostgreSQL did not start" >&2; return 1; }
  export COLMENA_TEST_POSTGRES COLMENA_TEST_POSTGRES_CA
  COLMENA_TEST_POSTGRES=$(head -1 "$pg_env")
  COLMENA_TEST_POSTGRES_CA=$(sed -n 3p "$pg_env")
  export COLMENA_BUS_STORE=$COLMENA_TEST_POSTGRES COLMENA_BUS_SCHEMA=@workspace
}

# The two PostgreSQL steps pick their test binaries with filters over the
# whole workspace (`--workspace -E binary_id(…)`), not with `-p`: cargo
# picks a dependency's features from the packages selected, so `-p` would
# build the server's and the core's test trees once more for each step; the
# workspace's build is the one the Rust tests step reuses.
binaries_of() { # package test...
  local package=$1 expr="" test
  shift
  for test in "$@"; do expr+="${expr:+ | }binary_id($package::$test)"; done
  printf '(%s)' "$expr"
}

pg_contract() {
  with_postgres
  cd "$REPO"
  # http_abuse's busy store is SQLite's write lock held by another process:
  # one machine's, SQLite only.
  cargo nextest run --locked --workspace --no-fail-fast -E "$(binaries_of colmena-server \
    http_bus http_mcp mcp_python bus_search_doors http_wake_token http_malformed http_abuse cli) \
    & not test(safe_a_busy_store_is_503_with_retry_after_and_no_internal_detail)"
}

pg_core_rules() {
  with_postgres
  cd "$REPO"
  cargo nextest run --locked --workspace --no-fail-fast -E "$(binaries_of colmena-core \
    bus bus_search bus_threads role_thread wake_command permissions cron) \
    & not (test(b8_notes_dropped_in_a_roles_folder) | test(the_index_survives_a_reopen))"
}

# Windows and macOS, beside the Linux steps: their builds are long and
# mostly wait for a free core, while the Linux steps after the first builds
# mostly wait for a window, a network or a database. They run one after
# another in a subshell at the lowest priority, with a target dir of their
# own (cargo locks the dir it builds in); their output is printed whole, and
# their results join the summary, once the Linux steps are done.
background_pid=""
background_log="$results/background.log"
background_results="$results/background.tsv"
run_in_background() { # id name fn [id name fn]...
  local wanted=()
  while (($#)); do
    if [[ -z ${TEST_STEPS:-} || ",$TEST_STEPS," == *",$1,"* ]]; then
      wanted+=("$1" "$2" "$3")
    fi
    shift 3
  done
  ((${#wanted[@]})) || return 0
  step "Started in the background, reported before the summary: ${wanted[1]}${wanted[4]:+; ${wanted[4]}}"
  (
    renice -n 19 -p "$BASHPID" >/dev/null
    ionice -c 3 -p "$BASHPID" 2>/dev/null || true
    export CARGO_TARGET_DIR="${OTHER_OSES_TARGET_DIR:-$CARGO_TARGET_DIR-other-oses}"
    set -- "${wanted[@]}"
    while (($#)); do
      local name=$2 fn=$3 begun=$SECONDS status
      shift 3
      printf '\n\033[1;33m==> %s\033[0m\n' "$name"
      set +e
      (
        set -euo pipefail
        "$fn"
      )
      status=$?
      set -e
      printf '%s\t%s\t%s\n' "$status" "$((SECONDS - begun))" "$name" >>"$background_results"
    done
  ) >"$background_log" 2>&1 < /dev/null &
  background_pid=$!
}

# Waits for the background steps, prints their output and adds their
# results to the summary's.
finish_background() {
  [[ -n $background_pid ]] || return 0
  step "The steps run in the background (their output, as they wrote it)"
  wait "$background_pid" || true
  cat "$background_log"
  local status seconds name
  while IFS=$'\t' read -r status seconds name; do
    step_names+=("$name")
    step_seconds+=("$seconds")
    if ((status == 0)); then
      step_status+=(passed)
    else
      step_status+=(failed)
      printf '\033[1;31m!!! step failed (exit %s): %s\033[0m\n' "$status" "$name"
    fi
  done <"$background_results"
}

rust_log="$results/nextest.log"
rust_tests() {
  # The rest of the Rust tests need the cluster's URL too (pg_replicas, pg_tls).
  [[ -s $pg_env ]] && with_postgres && unset COLMENA_BUS_STORE COLMENA_BUS_SCHEMA
  cd "$REPO"
  # This command runs as root: the sandbox's root cases (capabilities
  # dropped, another user, a private /proc) must run, not skip.
  COLMENA_REQUIRE_KEYCHAIN_TEST=1 COLMENA_REQUIRE_ROOT_TESTS=1 \
    cargo nextest run --workspace --locked --no-fail-fast 2>&1 | tee "$rust_log"
}

run_step setup "Set-up: system packages, toolchains, npm packages, the MCP SDK venv" setup
run_step fmt "Rust formatting" formatting
run_step layering "Layering: colmena-core depends on no UI or network framework" layering
run_step ui "UI: type check, lint, unit tests, build" ui
run_in_background \
  other-oses "Other OSes: clippy for Windows (mingw-w64) and macOS, Apple silicon and Intel (Zig)" other_oses \
  wine "Windows under Wine: the bus, MCP, serve, the launch pipe, Job Objects, an agent run" windows_under_wine
run_step clippy "Clippy (warnings are errors)" clippy
run_step installers "App and installers (.deb, .rpm)" installers
run_step e2e "End-to-end: the real app under Xvfb" e2e
run_step bench "App against the empty Tauri shell (scripts/bench-app.sh --quick: one round, debug builds)" bench_app
run_step mcp "MCP Inspector CLI lists the tools of colmena mcp" mcp_inspector
run_step netns "A team's bus across network namespaces: a CLI role and an MCP client over TLS, links cut mid-traffic" team_bus
if [[ -z ${TEST_STEPS:-} || ",$TEST_STEPS," == *",pg-"* || ",$TEST_STEPS," == *",rust,"* ]]; then
  # Not a step of its own in the summary: its failure fails the steps that need it.
  step "PostgreSQL for the bus's PostgreSQL store: a throwaway cluster (initdb, pg_ctl)"
  start_postgres || echo "the throwaway PostgreSQL did not start" >&2
fi
run_step pg-contract "The bus on PostgreSQL: the REST and MCP contract suites, unchanged, each test a schema of its own" pg_contract
run_step pg-core "The bus on PostgreSQL: the core's bus rules (drop folders and tantivy's own index are one machine's: SQLite only)" pg_core_rules
echo "set-up and checks took $((SECONDS - started)) s"
run_step rust "Rust tests (core, CLI, IPC, MCP, bindings drift, keychain)" rust_tests
finish_background

# --- One summary: every step, then the Rust runner's own summary last.
failed=0
printf '\n\033[1;33m==> Summary (%s s in all)\033[0m\n' "$((SECONDS - started))"
for i in "${!step_names[@]}"; do
  [[ ${step_status[$i]} == passed ]] || failed=$((failed + 1))
  printf '%-7s %6s s  %s\n' "${step_status[$i]}" "${step_seconds[$i]}" "${step_names[$i]}"
done
printf 'steps: %s passed, %s failed\n' "$((${#step_names[@]} - failed))" "$failed"
# nextest colours its lines (CARGO_TERM_COLOR): read them without.
plain=$([[ -s $rust_log ]] && sed -e 's/\x1b\[[0-9;]*m//g' "$rust_log" | sed -n '/^ *Summary \[/,$p' || true)
if [[ -n $plain ]]; then
  echo "Rust tests (cargo nextest):"
  # Its failures first, its closing "N tests run: … passed …" line last.
  grep -E '^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT|LEAK)' <<<"$plain" || true
  grep -E '^ *Summary \[' <<<"$plain" | tail -1
fi
((failed == 0))
