"""send_message latency of a real MCP peer (mcp_agent_mail) over streamable
HTTP, driven by the official Python MCP SDK. Run by scripts/bench-mcp-peer.sh,
which starts the peer; usage: bench_peer.py URL PROJECT_DIR.

One project and 9 agents, then two runs, each printed as one plain line:
  sequential   one session, 50 calls in a row
  concurrent   8 sessions (one per sender, all to the 9th agent), 25 calls
               each, one at a time per session
Every call is checked (a failed call is not a latency) and has a timeout, and
each run has an overall deadline, so nothing here can loop or hang for ever.
"""

import statistics
import sys
import time

import anyio
from mcp import Client

SEQUENTIAL_CALLS = 50
SENDERS = 8
CALLS_PER_SENDER = 25
CALL_TIMEOUT_S = 30  # one send_message; the peer commits to git per message
RUN_DEADLINE_S = 300  # a whole run; 2 cores, so the concurrent one queues


def ok(result, what):
    if result.is_error:
        raise RuntimeError(f"{what} failed: {result.content}")
    return result.structured_content


def client(url):
    return Client(url, read_timeout_seconds=CALL_TIMEOUT_S)


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


def report(label, latencies, wall):
    ms = sorted(x * 1000 for x in latencies)
    # Nearest-rank percentiles: with 50 or 200 samples, no interpolation games.
    def pct(p):
        return ms[max(0, min(len(ms) - 1, round(p / 100 * len(ms) + 0.5) - 1))]
    print(f"{label}: {len(ms)} calls in {wall:.2f} s, {len(ms) / wall:.1f} messages/s, "
          f"p50 {pct(50):.1f} ms, p99 {pct(99):.1f} ms, mean {statistics.fmean(ms):.1f} ms per call",
          flush=True)


async def main(url, project):
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

        # One warm-up call, so the first measured call does not pay for the
        # project's first git commit of a message.
        await send(session, project, senders[0], recipient, 0)

        latencies = []
        start = time.perf_counter()
        with anyio.fail_after(RUN_DEADLINE_S):
            for n in range(1, SEQUENTIAL_CALLS + 1):
                latencies.append(await send(session, project, senders[0], recipient, n))
        report("sequential (1 session x 50)", latencies, time.perf_counter() - start)

    # Each sender opens its own session first; the clock starts once all are up.
    latencies = []
    async def sender_loop(name, session, ready, go):
        async with session:
            ready.release()
            await go.wait()
            for n in range(1, CALLS_PER_SENDER + 1):
                latencies.append(await send(session, project, name, recipient, 1000 + n))

    ready = anyio.Semaphore(0)
    go = anyio.Event()
    with anyio.fail_after(RUN_DEADLINE_S):
        async with anyio.create_task_group() as tg:
            for name in senders:
                tg.start_soon(sender_loop, name, client(url), ready, go)
            for _ in senders:
                await ready.acquire()
            start = time.perf_counter()
            go.set()
    report(f"concurrent ({SENDERS} sessions x {CALLS_PER_SENDER})", latencies, time.perf_counter() - start)

    # The recipient really got them all (fetch_inbox caps its limit itself).
    async with client(url) as session:
        inbox = await session.call_tool("fetch_inbox", {
            "project_key": project, "agent_name": recipient, "limit": 1000})
        ok(inbox, "fetch_inbox")
        got = inbox.structured_content
        got = got.get("result", got) if isinstance(got, dict) else got
        expected = 1 + SEQUENTIAL_CALLS + SENDERS * CALLS_PER_SENDER
        print(f"inbox of {recipient}: {len(got)} messages (sent {expected})", flush=True)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
