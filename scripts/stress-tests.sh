#!/usr/bin/env bash
# Runs the tests most exposed to timing N times in a row and prints how often
# each one failed: a flaky test shows up here before it turns a CI run red.
#
#   ./scripts/stress-tests.sh [N]                 # N = 10 by default
#   STRESS_GROUPS=netns,http ./scripts/stress-tests.sh 20
#   STRESS_NO_BUILD=1 …   # use the binaries the target dir holds as they are
#   STRESS_GROUPS=e2e STRESS_E2E_SPECS=swarms …   # one E2E spec only
#
# Groups (all by default):
#   netns     tests/netns/team-bus.sh: links cut mid-traffic across namespaces
#   http      the HTTP abuse and malformed-request suites on SQLite
#   http-pg   the same suites on PostgreSQL (a throwaway cluster)
#   e2e       the E2E specs that kill, relaunch or wait on background work
#
# Everything is built once first (as the test command builds it); each
# round then only runs. Ends with one table, a test a line: its runs and
# failures, worst first; exits non-zero if any test failed even once. Logs
# of every run are kept in $STRESS_LOGS (a temporary folder by default).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rounds=${1:-10}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [N] (N >= 1)" >&2; exit 2; }
groups=",${STRESS_GROUPS:-netns,http,http-pg,e2e},"
logs=${STRESS_LOGS:-$(mktemp -d /tmp/colmena-stress.XXXXXX)}
mkdir -p "$logs"
results="$logs/results.tsv" # round, test, ok|fail
: >"$results"
wants() { [[ $groups == *",$1,"* ]]; }

# The E2E specs that kill or relaunch the app, or wait on work the app does
# in the background after its first frame (schedulers, the local server,
# streaming, the team bus's outbox).
# STRESS_E2E_SPECS (space-separated) narrows them, to hammer one spec.
read -r -a E2E_SPECS <<<"${STRESS_E2E_SPECS:-swarms desktop-shell looks cron inbox chat-images canvas team-bus upgrade}"
HTTP_TESTS=(--test http_abuse --test http_malformed)
# A busy store is SQLite's write lock held by another process: one machine's.
SQLITE_ONLY='test(safe_a_busy_store_is_503_with_retry_after_and_no_internal_detail)'

export COLMENA_APP="$CARGO_TARGET_DIR/debug/colmena-desktop"
export COLMENA_CLI="$CARGO_TARGET_DIR/debug/colmena"
export COLMENA_SCRIPTED_LLM="$CARGO_TARGET_DIR/debug/colmena-scripted-llm"
export COLMENA_MCP_PYTHON="$TOOLS/mcp-venv/bin/python"
export COLMENA_E2E_SCREENSHOTS="$logs/screenshots"

# A web process that crashes ends its session ("invalid session id"): count
# the crashes the kernel logged during the run, where its log is readable.
web_crashes() { dmesg 2>/dev/null | grep -c 'WebKitWebProces.*segfault' || true; }
crashes_before=$(web_crashes)

cd "$REPO"
if [[ -n ${STRESS_NO_BUILD:-} ]]; then
  # The binaries as the target dir holds them (another checkout is using
  # them: rebuilding would swap them under its feet).
  step "Not building (STRESS_NO_BUILD)"
else
  step "Building once"
  if wants e2e; then tauri_cli build --debug --no-bundle; fi
  cargo build --locked -p colmena-server -p colmena-scripted-llm -p colmena-core --bins
  if wants http || wants http-pg; then
    cargo nextest run --locked -p colmena-server --no-run "${HTTP_TESTS[@]}"
  fi
fi

pg_dir=""
if wants http-pg; then
  step "PostgreSQL: a throwaway cluster"
  pg_started=$("$REPO/tests/postgres/start.sh")
  pg_dir=$(sed -n 2p <<<"$pg_started")
  trap '"$REPO/tests/postgres/stop.sh" "$pg_dir"' EXIT
  pg_url=$(head -1 <<<"$pg_started")
  export COLMENA_TEST_POSTGRES=$pg_url
  export COLMENA_TEST_POSTGRES_CA=$(sed -n 3p <<<"$pg_started")
fi

record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }

# Each test nextest ran, passed or failed, from its (colourless) output.
record_nextest() { # round prefix log
  sed -e 's/\x1b\[[0-9;]*m//g' "$3" |
    sed -nE 's/^ *(PASS|FAIL|SIGSEGV|SIGABRT|TIMEOUT) \[[^]]*\] +(\([^)]*\) +)?([^ ]+ +[^ ]+).*$/\1\t\3/p' |
    sort -u | while IFS=$'\t' read -r status name; do
      [[ $status == PASS ]] && record "$1" "$2$name" ok || record "$1" "$2$name" fail
    done
}

for round in $(seq "$rounds"); do
  step "Round $round of $rounds"
  if wants netns; then
    log="$logs/netns-$round.log"
    if "$REPO/tests/netns/team-bus.sh" >"$log" 2>&1; then
      record "$round" "netns: team-bus.sh" ok
    else
      record "$round" "netns: team-bus.sh" fail
      tail -5 "$log"
    fi
  fi
  if wants http; then
    log="$logs/http-$round.log"
    (cd "$REPO" && cargo nextest run --locked -p colmena-server --no-fail-fast "${HTTP_TESTS[@]}") >"$log" 2>&1 || true
    record_nextest "$round" "sqlite: " "$log"
  fi
  if wants http-pg; then
    log="$logs/http-pg-$round.log"
    (cd "$REPO" && COLMENA_BUS_STORE=$pg_url COLMENA_BUS_SCHEMA=@workspace \
      cargo nextest run --locked -p colmena-server --no-fail-fast "${HTTP_TESTS[@]}" -E "not ($SQLITE_ONLY)") \
      >"$log" 2>&1 || true
    record_nextest "$round" "postgres: " "$log"
  fi
  if wants e2e; then
    for spec in "${E2E_SPECS[@]}"; do
      log="$logs/e2e-$spec-$round.log"
      tap="$logs/e2e-$spec-$round.tap"
      (cd "$REPO/tests/e2e" && xvfb-run -a -s "-screen 0 1280x800x24" node --test --test-concurrency=1 \
        --test-timeout=600000 --test-reporter=tap --test-reporter-destination="$tap" \
        "specs/$spec.test.mjs") >"$log" 2>&1 || true
      # Each test of the spec: "ok N - name" / "not ok N - name" (the file's
      # own line is its subtest's summary; a file that could not start has
      # only that one).
      if ! grep -qE '^ *(not )?ok [0-9]+ - ' "$tap" 2>/dev/null; then
        record "$round" "e2e $spec: (did not run)" fail
      fi
      sed -nE 's/^ *(not ok|ok) [0-9]+ - (.*)$/\1\t\2/p' "$tap" 2>/dev/null | sort -u |
        while IFS=$'\t' read -r status name; do
          [[ $status == ok ]] && record "$round" "e2e $spec: $name" ok || record "$round" "e2e $spec: $name" fail
        done
    done
  fi
  printf 'round %s: %s failures so far\n' "$round" "$(grep -c $'\tfail$' "$results" || true)"
done

step "Failures per test ($rounds rounds; logs in $logs)"
awk -F'\t' '{ runs[$2]++; if ($3 == "fail") fails[$2]++ }
  END { for (t in runs) printf "%d\t%d\t%s\n", fails[t] + 0, runs[t], t }' "$results" |
  sort -t$'\t' -k1,1nr -k3,3 | awk -F'\t' '{ printf "%3d failed of %3d  %s\n", $1, $2, $3 }'
if dmesg >/dev/null 2>&1; then
  printf 'web process crashes in the kernel log during this run: %s\n' "$(($(web_crashes) - crashes_before))"
fi
total=$(grep -c $'\tfail$' "$results" || true)
tests=$(cut -f2 "$results" | sort -u | wc -l)
printf '%s tests, %s runs: %s passed, %s failed\n' "$tests" "$(wc -l <"$results")" \
  "$(grep -c $'\tok$' "$results" || true)" "$total"
((total == 0))
