#!/usr/bin/env bash
# Runs every test of Colmena, set-up included: formatting, lints, type
# checks, UI unit tests, the installers, the end-to-end tests in the real
# window, and finally every Rust test (whose summary ends the output).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
started=$SECONDS

"$REPO/scripts/setup.sh"

step "Rust formatting"
(cd "$REPO" && cargo fmt --all --check)

step "Layering: colmena-core depends on no UI or network framework"
if forbidden=$(cd "$REPO" && cargo tree --locked -p colmena-core -e normal,build --prefix none | grep -E '^(tauri|wry|webkit2gtk|gtk|axum|rmcp)[- ]'); then
  echo "colmena-core must not depend on: $forbidden" >&2
  exit 1
fi
echo "ok: no tauri, wry, webkit2gtk, gtk, axum or rmcp under colmena-core"

step "UI: type check, lint, unit tests, build"
(cd "$REPO/ui" && npm run --silent typecheck && npm run --silent lint && npm run --silent test && npm run --silent build)

step "Clippy (warnings are errors)"
(cd "$REPO" && cargo clippy --workspace --all-targets --locked -- -D warnings)

step "App and installers (.deb, .rpm)"
tauri_cli build --debug --bundles deb,rpm
"$REPO/tests/packaging/check-installers.sh" "$CARGO_TARGET_DIR/debug/bundle"

step "End-to-end: the real app under Xvfb"
(cd "$REPO" && cargo build --locked -p colmena-server -p colmena-scripted-llm -p colmena-core --bins)
export COLMENA_APP="$CARGO_TARGET_DIR/debug/colmena-desktop"
export COLMENA_CLI="$CARGO_TARGET_DIR/debug/colmena"
export COLMENA_SCRIPTED_LLM="$CARGO_TARGET_DIR/debug/colmena-scripted-llm"
export COLMENA_E2E_SCREENSHOTS="${COLMENA_E2E_SCREENSHOTS:-$REPO/tests/e2e/screenshots}"
(cd "$REPO/tests/e2e" && xvfb-run -a -s "-screen 0 1280x800x24" npm test)
echo "screenshots saved in $COLMENA_E2E_SCREENSHOTS"

step "App against the empty Tauri shell (scripts/bench-app.sh --quick: one round, debug builds)"
xvfb-run -a -s "-screen 0 1280x800x24" "$REPO/scripts/bench-app.sh" --quick

step "MCP Inspector CLI lists the tools of colmena mcp"
mcp_tmp=$(mktemp -d)
tools=$(cd "$REPO/tests/mcp" && HOME="$mcp_tmp" MCP_CATALOG_PATH="$mcp_tmp/catalog.json" \
  node_modules/.bin/mcp-inspector --cli "$COLMENA_CLI" --data-dir "$mcp_tmp/data" mcp --method tools/list |
  node -e 'for (const t of JSON.parse(require("fs").readFileSync(0, "utf8")).tools) console.log(t.name)')
rm -rf "$mcp_tmp"
for tool in session_create session_list_sources send_message read_inbox list_sent run_agent; do
  grep -qx "$tool" <<<"$tools" || { echo "tools/list lacks $tool; it lists: ${tools//$'\n'/ }" >&2; exit 1; }
done
echo "ok: $(wc -l <<<"$tools") tools, among them session_create, session_list_sources, send_message, read_inbox, list_sent, run_agent"

export COLMENA_MCP_PYTHON="$TOOLS/mcp-venv/bin/python"

step "A team's bus across network namespaces: a CLI role and an MCP client over TLS, links cut mid-traffic"
"$REPO/tests/netns/team-bus.sh"

step "PostgreSQL for the bus's PostgreSQL store: a throwaway cluster (initdb, pg_ctl)"
pg_started=$("$REPO/tests/postgres/start.sh")
pg_dir=$(sed -n 2p <<<"$pg_started")
trap '"$REPO/tests/postgres/stop.sh" "$pg_dir"' EXIT
export COLMENA_TEST_POSTGRES=$(head -1 <<<"$pg_started")
export COLMENA_TEST_POSTGRES_CA=$(sed -n 3p <<<"$pg_started")
echo "listening at $COLMENA_TEST_POSTGRES (data in $pg_dir)"

step "The bus on PostgreSQL: the REST and MCP contract suites, unchanged, each test a schema of its own"
(cd "$REPO" && COLMENA_BUS_STORE=$COLMENA_TEST_POSTGRES COLMENA_BUS_SCHEMA=@workspace \
  cargo nextest run --locked -p colmena-server --no-fail-fast \
  --test http_bus --test http_mcp --test mcp_python --test bus_search_doors \
  --test http_wake_token --test http_malformed --test cli)

step "The bus on PostgreSQL: the core's bus rules (drop folders and tantivy's own index are one machine's: SQLite only)"
(cd "$REPO" && COLMENA_BUS_STORE=$COLMENA_TEST_POSTGRES COLMENA_BUS_SCHEMA=@workspace \
  cargo nextest run --locked -p colmena-core --no-fail-fast \
  --test bus --test bus_search --test bus_threads --test role_thread --test wake_command \
  --test permissions --test cron \
  -E 'not (test(b8_notes_dropped_in_a_roles_folder) | test(the_index_survives_a_reopen))')

step "Rust tests (core, CLI, IPC, MCP, bindings drift, keychain)"
echo "set-up and checks took $((SECONDS - started)) s"
cd "$REPO"
COLMENA_REQUIRE_KEYCHAIN_TEST=1 cargo nextest run --workspace --locked --no-fail-fast
