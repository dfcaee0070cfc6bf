#!/usr/bin/env bash
# A team's bus across three machines, made on this one with Linux network
# namespaces (issue 17): a bus host runs `colmena serve --allow-remote` over
# TLS with the team's own CA; host A is a role speaking through the
# `colmena` CLI (`message send|inbox --server`), host B an MCP client (the
# official Python SDK over /mcp). Both send mail to each other; mid-traffic
# each client's link is cut (`ip link set … down`) and brought back. Every
# message must be on the bus exactly once: sends wait while the link is
# down and carry their own message id, which the bus keeps once.
#
# The outage outlasts every client timeout and retry pause (CUT_SECONDS
# against the CLI's 10 s per attempt and the MCP client's 15 s per call), so
# a request caught by the cut cannot be carried across it by TCP's
# retransmission: a client still sending when the link went down must see
# the cut, whatever the machine's speed.
#
# Needs root (network namespaces) and the binaries the test command builds:
#   COLMENA_CLI=…/colmena COLMENA_MCP_PYTHON=…/python tests/netns/team-bus.sh
# Without the privileges it says so in one line and exits 0 (the test
# command runs it either way). Traffic stays inside the namespaces it makes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli=${COLMENA_CLI:?set COLMENA_CLI to the colmena binary}
python=${COLMENA_MCP_PYTHON:?set COLMENA_MCP_PYTHON to the MCP SDK venv python}
count=${TEAM_BUS_MESSAGES:-40}
# Longer than the longest client timeout (mcp_sender.py's CALL_TIMEOUT_SECONDS
# = 15 s; the CLI's attempt timeout is 10 s).
cut_seconds=${TEAM_BUS_CUT_SECONDS:-20}

tag="cb$$"
bus_ns="$tag-bus" a_ns="$tag-a" b_ns="$tag-b"
if [[ $(id -u) != 0 ]] || ! ip netns add "$bus_ns" 2>/dev/null; then
  echo "SKIPPED: the team-bus test across network namespaces needs root and 'ip netns' (run the test command as root)"
  exit 0
fi

work=""
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # Whatever still runs inside a namespace (a send waiting on its link)
  # would keep it alive after it is deleted.
  for ns in "$bus_ns" "$a_ns" "$b_ns"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  wait 2>/dev/null || true
  for ns in "$bus_ns" "$a_ns" "$b_ns"; do ip netns del "$ns" 2>/dev/null || true; rm -rf "/etc/netns/$ns"; done
  [[ -n $work ]] && rm -rf "$work"
  return 0
}
trap cleanup EXIT
work=$(mktemp -d)

say() { printf '[team-bus] %s\n' "$*"; }
fail() { printf '[team-bus] FAILED: %s\n' "$*" >&2; [[ -f $work/serve.log ]] && tail -20 "$work/serve.log" >&2; exit 1; }

# --- The network: bus <-> A on 10.77.1.0/24, bus <-> B on 10.77.2.0/24.
ip netns add "$a_ns"
ip netns add "$b_ns"
for ns in "$bus_ns" "$a_ns" "$b_ns"; do ip -n "$ns" link set lo up; done
link() { # client_ns subnet_octet short_name
  ip link add "$3-bus" netns "$bus_ns" type veth peer name "$3-host" netns "$1"
  ip -n "$bus_ns" addr add "10.77.$2.1/24" dev "$3-bus"
  ip -n "$1" addr add "10.77.$2.2/24" dev "$3-host"
  ip -n "$bus_ns" link set "$3-bus" up
  ip -n "$1" link set "$3-host" up
  # Each host knows the bus by its team name (ip netns exec mounts this).
  mkdir -p "/etc/netns/$1"
  printf '127.0.0.1 localhost\n10.77.%s.1 bus.team\n' "$2" >"/etc/netns/$1/hosts"
}
link "$a_ns" 1 "$tag"a
link "$b_ns" 2 "$tag"b
say "namespaces $bus_ns, $a_ns, $b_ns linked"

# --- The team's CA and the bus's certificate for bus.team.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj "/CN=Team CA" -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=bus.team" \
  -keyout "$work/bus.key" -out "$work/bus.csr" 2>/dev/null
printf 'subjectAltName=DNS:bus.team\nbasicConstraints=CA:FALSE\n' >"$work/ext"
openssl x509 -req -in "$work/bus.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 2 -extfile "$work/ext" -out "$work/bus.pem" 2>/dev/null

# --- The bus host: a workspace, two authors, the server.
export COLMENA_SECRET_BACKEND=file
unset COLMENA_DATA_DIR COLMENA_SERVER COLMENA_CA COLMENA_TOKEN
bus_cli() { "$cli" --data-dir "$work/bus" "$@"; }
author() {
  local made; made=$(bus_cli --json author create "$1")
  "$python" -c 'import json,sys; m=json.load(sys.stdin); print(m["id"]); open(sys.argv[1],"w").write(m["token"])' \
    "$work/$1.token" <<<"$made"
}
ana=$(author Ana)
beto=$(author Beto)
ip netns exec "$bus_ns" "$cli" --data-dir "$work/bus" serve --bind 0.0.0.0:8787 --allow-remote \
  --allowed-host bus.team --tls-cert "$work/bus.pem" --tls-key "$work/bus.key" >"$work/serve.log" 2>&1 &
pids+=($!)
# Wait for the server to say where it listens (generous: a loaded 2-core
# machine), or for it to die.
until grep -q listening "$work/serve.log" 2>/dev/null; do
  kill -0 "${pids[-1]}" 2>/dev/null || fail "the bus exited before listening"
  ((SECONDS < 120)) || fail "the bus did not listen within 120 s"
  sleep 0.1
done
grep -q "https://" "$work/serve.log" || fail "the bus did not start over TLS"
say "bus.team serves HTTPS on 0.0.0.0:8787 (authors: Ana $ana on host A, Beto $beto on host B)"

# --- Host A: the CLI role sends COUNT messages, one after another.
(
  for i in $(seq "$count"); do
    ip netns exec "$a_ns" "$cli" --data-dir "$work/host-a" message send "$beto" "a-$i" --as "$ana" \
      --message-id "a-$i" --wait 120 --server https://bus.team:8787 --ca "$work/ca.pem" \
      --token-file "$work/Ana.token" >/dev/null || exit 1
  done
) >"$work/a.log" 2>&1 &
a_pid=$!
pids+=("$a_pid")
# --- Host B: the MCP client sends COUNT messages.
ip netns exec "$b_ns" "$python" "$here/mcp_sender.py" https://bus.team:8787/mcp "$work/Beto.token" \
  "$work/ca.pem" "$ana" b "$count" >"$work/b.log" 2>&1 &
b_pid=$!
pids+=("$b_pid")

delivered() { # recipient prefix: how many of the prefix's messages the bus holds
  bus_cli --json message inbox --as "$1" --peek --all --limit 1000 |
    "$python" -c 'import json,sys; print(sum(1 for m in json.load(sys.stdin) if m["body"].startswith(sys.argv[1] + "-")))' "$2"
}
wait_until() { # recipient prefix at_least: a condition with a generous deadline
  local deadline=$((SECONDS + 180))
  while ((SECONDS < deadline)); do
    (($(delivered "$1" "$2") >= $3)) && return 0
    kill -0 "$a_pid" 2>/dev/null || kill -0 "$b_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# --- Mid-traffic, cut each client's link for longer than any client waits.
cut() { # ns device recipient prefix
  wait_until "$3" "$4" $((count / 4)) || fail "host $4 did not get going: $(cat "$work/$4.log")"
  local before; before=$(delivered "$3" "$4")
  ip -n "$1" link set "$2" down
  say "host $4: link down after $before of $count messages, for $cut_seconds s"
  # The cut is real: from the host, the bus cannot be reached at all.
  ip netns exec "$1" "$python" -c '
import socket, sys
s = socket.socket()
s.settimeout(5)
sys.exit("the bus is still reachable" if s.connect_ex(("bus.team", 8787)) == 0 else 0)' ||
    fail "host $4's link is down but the bus still answers"
  # The outage itself, longer than any client timeout. What is checked
  # afterwards is what must hold whatever the cut caught: each message once.
  sleep "$cut_seconds"
  delivered "$3" "$4" >"$work/$4.during"
  ip -n "$1" link set "$2" up
  say "host $4: link up again ($(cat "$work/$4.during") delivered by then)"
}
# Both at once, while both hosts are sending.
cut "$a_ns" "$tag"a-host "$beto" a &
cut_a=$!
cut "$b_ns" "$tag"b-host "$ana" b &
cut_b=$!
wait "$cut_a" || exit 1
wait "$cut_b" || exit 1

wait "$a_pid" || fail "host A's sends did not all land: $(cat "$work/a.log")"
wait "$b_pid" || fail "host B's sends did not all land: $(cat "$work/b.log")"
say "host B: $(cat "$work/b.log")"
# Host B still had mail to send after the outage (fewer than all delivered
# when the link came back), so it was sending throughout a cut longer than
# its call timeout: it must have seen at least one call fail, and recovered.
if (($(cat "$work/b.during") < count)); then
  "$python" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["failed_attempts"] > 0 else "host B never saw its link cut")' \
    "$work/b.log" || fail "host B sent through a ${cut_seconds} s outage without a failed call"
fi

# --- Every message on the bus exactly once, and A reads B's mail remotely.
check_once() { # recipient prefix
  bus_cli --json message inbox --as "$1" --peek --all --limit 1000 | "$python" -c '
import collections, json, sys
prefix, count = sys.argv[1], int(sys.argv[2])
bodies = collections.Counter(m["body"] for m in json.load(sys.stdin) if m["body"].startswith(prefix + "-"))
expected = {f"{prefix}-{i}" for i in range(1, count + 1)}
missing, doubled = expected - set(bodies), {b: n for b, n in bodies.items() if n > 1}
if missing or doubled or set(bodies) - expected:
    sys.exit(f"{prefix}: missing {sorted(missing)}, doubled {doubled}")
print(f"{prefix}: {count} messages, each once")' "$2" "$count" || fail "mail lost or doubled"
}
check_once "$beto" a
check_once "$ana" b
read_by_a=$(ip netns exec "$a_ns" "$cli" --data-dir "$work/host-a" --json message inbox --as "$ana" --limit 1000 \
  --server https://bus.team:8787 --ca "$work/ca.pem" --token-file "$work/Ana.token" |
  "$python" -c 'import json,sys; print(len(json.load(sys.stdin)))')
((read_by_a == count)) || fail "host A read $read_by_a of $count messages from host B"
say "host A read B's $count messages over the link"
[[ ! -e $work/host-a ]] || fail "the CLI made a workspace on host A"
say "ok: $((2 * count)) messages across two cut links, none lost, none doubled"
