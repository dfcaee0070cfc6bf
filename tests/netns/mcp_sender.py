"""An MCP client on another host of a team's bus (tests/netns/team-bus.sh).

Sends COUNT messages to an author through Colmena's `/mcp` over TLS (the
team's CA, verified), with the official Python MCP SDK. Each message has
its own message_id; when the link drops mid-call, the client opens a new
session and sends the same message again with the same id, so the bus keeps
it once. Prints one JSON line: how many were acknowledged and how many
attempts failed on the way.

Usage: mcp_sender.py URL TOKEN_FILE CA_PEM TO PREFIX COUNT
"""

import json
import ssl
import sys
import time

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

PATIENCE_SECONDS = 120
CALL_TIMEOUT_SECONDS = 15
# A person's pace rather than a flood: the link is cut while mail flows.
PAUSE_SECONDS = 0.1


def client(url, token, ca):
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        verify=ssl.create_default_context(cafile=ca),
        timeout=httpx2.Timeout(10.0),
    )
    return Client(
        streamable_http_client(url, http_client=http),
        client_info=Implementation(name="netns-mcp-sender", version="1.0.0"),
        read_timeout_seconds=10,
    )


async def main(url, token_file, ca, to, prefix, count):
    token = open(token_file).read().strip()
    acknowledged, failures = [], 0
    i, deadline = 1, time.monotonic() + PATIENCE_SECONDS
    while i <= count:
        try:
            # One session while the link holds; a new one after it broke,
            # the unacknowledged message sent again with its id.
            async with client(url, token, ca) as session:
                while i <= count:
                    args = {"to_author_name": to, "body": f"{prefix}-{i}", "message_id": f"{prefix}-{i}"}
                    with anyio.fail_after(CALL_TIMEOUT_SECONDS):
                        result = await session.call_tool("send_message", args)
                    if result.is_error:
                        sys.exit(f"send_message {args['message_id']} refused: {result.content}")
                    acknowledged.append(result.structured_content["id"])
                    i, deadline = i + 1, time.monotonic() + PATIENCE_SECONDS
                    await anyio.sleep(PAUSE_SECONDS)
        except Exception as e:  # the link: timeouts, resets, a dead session
            failures += 1
            if time.monotonic() > deadline:
                sys.exit(f"{prefix}-{i} not acknowledged in {PATIENCE_SECONDS} s: {e!r}")
            await anyio.sleep(0.5)
    print(json.dumps({"acknowledged": len(acknowledged), "distinct": len(set(acknowledged)),
                      "failed_attempts": failures}))


if __name__ == "__main__":
    url, token_file, ca, to, prefix, count = sys.argv[1:7]
    anyio.run(main, url, token_file, ca, to, prefix, int(count))
