"""send_message latency of a real MCP peer (mcp_agent_mail) over streamable
HTTP, driven by the official Python MCP SDK. Run by scripts/bench-mcp-peer.sh,
which starts the peer; usage: bench_peer.py URL PROJECT_DIR.

One project and 9 agents, then two runs, each printed as one plain line:
  sequential   one session, 50 calls in a row
  concurrent   8 sessions (one per sender, all to the 9th agent), 25 calls
               each, one at a time per session
A failed call is not a latency: it ends its run, which then prints FAILED with
the peer's own error text, and the exit status is 1. Every call has a timeout
and each run a deadline, so nothing here can loop or hang for ever.
"""

import statistics
import sys
import time

import anyio
from mcp import Client

SEQUENTIAL_CALLS = 50
SENDERS = 8
CALLS_PER_SENDER = 25
# Above the peer's own 60 s archive-lock timeout, so that when the peer
# wedges, its error text reaches us instead of a bare client timeout.
CALL_TIMEOUT_S = 90
RUN_DEADLINE_S = 300


def ok(result, what):
    if result.is_error:
        text = " ".join(getattr(c, "text", str(c)) for c in result.content)
        raise RuntimeError(f"{what} failed: {text}")
    return result.structured_content


def client(url):
    return Client(url, read_timeout_seconds=CALL_TIMEOUT_S)


def innermost(exc):
    # The SDK's task groups wrap errors; the first leaf is the one to show.
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


async def send(session, project, sender, recipient, n):
    """Times one send_message; returns seconds."""
    start = time.perf_counter()
    result = await session.call_tool("send_message", {
        "project_key": project, "sender_name": sender, "to": [recipient],
        "subject": f"bench {n}", "body_md": f"Message {n} from {sender}.",
    })
    elapsed = time.perf_counter() - start
    ok(result, f"send_message {sender} #{n}")
    return elapsed


async def measure(label, url, project, senders, recipient, calls):
    """One session per sender, `calls` sends each, one at a time per session;
    the clock starts once every session is open. Returns True if all went."""
    latencies, failures = [], []
    ready, go = anyio.Semaphore(0), anyio.Event()

    async def sender_loop(name, tg):
        try:
            async with client(url) as session:
                ready.release()
                await go.wait()
                for n in range(1, calls + 1):
                    latencies.append(await send(session, project, name, recipient, n))
        except Exception as exc:  # the first failure ends the run
            failures.append(str(innermost(exc)))
            tg.cancel_scope.cancel()

    start = time.perf_counter()
    with anyio.move_on_after(RUN_DEADLINE_S) as deadline:
        async with anyio.create_task_group() as tg:
            for name in senders:
                tg.start_soon(sender_loop, name, tg)
            for _ in senders:
                await ready.acquire()
            start = time.perf_counter()
            go.set()
    wall = time.perf_counter() - start
    if deadline.cancelled_caught:
        failures.append(f"run deadline of {RUN_DEADLINE_S} s passed")

    total = len(senders) * calls
    if failures:
        print(f"{label}: FAILED after {len(latencies)} of {total} calls in {wall:.1f} s: {failures[0]}",
              flush=True)
        return False
    ms = sorted(x * 1000 for x in latencies)
    # Nearest-rank percentiles: with 50 or 200 samples, no interpolation.
    def pct(p):
        return ms[max(0, min(len(ms) - 1, -(-p * len(ms) // 100) - 1))]
    print(f"{label}: {len(ms)} calls in {wall:.2f} s, {len(ms) / wall:.1f} messages/s, "
          f"p50 {pct(50):.1f} ms, p99 {pct(99):.1f} ms, mean {statistics.fmean(ms):.1f} ms per call",
          flush=True)
    return True


async def main(url, project):
    with anyio.fail_after(120):
        async with client(url) as session:
            ok(await session.call_tool("ensure_project", {"human_key": project}), "ensure_project")
            names = []
            for i in range(SENDERS + 1):
                # Names are left to the peer: it only accepts adjective+noun names.
                agent = ok(await session.call_tool("register_agent", {
                    "project_key": project, "program": "colmena-bench", "model": "none",
                    "task_description": f"bench agent {i}",
                }), "register_agent")
                names.append(agent["name"])
            senders, recipient = names[:SENDERS], names[SENDERS]
            # One warm-up send, so that no measured call pays for the first
            # commit of a message into the project's git archive.
            await send(session, project, senders[0], recipient, 0)

    good = await measure(f"sequential (1 session x {SEQUENTIAL_CALLS})", url, project,
                         senders[:1], recipient, SEQUENTIAL_CALLS)
    good = await measure(f"concurrent ({SENDERS} sessions x {CALLS_PER_SENDER})", url, project,
                         senders, recipient, CALLS_PER_SENDER) and good
    if not good:
        return 1

    # The recipient really got them all.
    with anyio.fail_after(60):
        async with client(url) as session:
            inbox = await session.call_tool("fetch_inbox", {
                "project_key": project, "agent_name": recipient, "limit": 1000})
    got = ok(inbox, "fetch_inbox")
    got = got.get("result", got) if isinstance(got, dict) else got
    sent = 1 + SEQUENTIAL_CALLS + SENDERS * CALLS_PER_SENDER
    print(f"inbox of {recipient}: {len(got)} messages (sent {sent})", flush=True)
    return 0 if len(got) == sent else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2]))
