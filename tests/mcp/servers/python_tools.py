"""An MCP server written with the official Python SDK, for Colmena's client
tests (crates/colmena-server/tests/mcp_client.rs): text, structured and image
results, a slow tool (to kill the server mid-call), a tool list that changes,
and its own process id (to check that nothing outlives Colmena)."""

import base64
import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image

server = MCPServer("colmena-test-python")

PID_FILE = os.environ.get("COLMENA_TEST_PID_FILE")
if PID_FILE:
    with open(PID_FILE, "a", encoding="utf-8") as f:
        f.write(f"{os.getpid()}\n")

# A 1x1 red PNG.
RED_PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@server.tool()
def add(a: int, b: int) -> dict:
    """Adds two integers and returns the sum as structured content."""
    return {"sum": a + b}


@server.tool()
def whoami() -> str:
    """Says which process serves, and COLMENA_TEST_SECRET reversed (proof the
    secret reached the server, without the secret itself in the result)."""
    return f"pid {os.getpid()} secret-reversed={os.environ.get('COLMENA_TEST_SECRET', '')[::-1]}"


# Where `slow` says it has begun (a test kills the server only then).
SLOW_FILE = os.environ.get("COLMENA_TEST_SLOW_FILE")


@server.tool()
def slow(seconds: float) -> str:
    """Sleeps, then answers."""
    if SLOW_FILE:
        with open(SLOW_FILE, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def picture() -> Image:
    """Returns a tiny PNG."""
    return Image(data=RED_PIXEL, format="png")


@server.tool()
def fail() -> str:
    """Always raises: a tool error the model should read."""
    raise ToolError("the gauge is broken")


def extra() -> str:
    """A tool that exists only after grow() ran."""
    return "extra tool answered"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra` and tells the client its tool list changed."""
    server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "grown"


if __name__ == "__main__":
    print("python test server starting", file=sys.stderr, flush=True)
    # A server slow to start: what a killed Colmena leaves behind, if anything.
    time.sleep(float(os.environ.get("COLMENA_TEST_START_DELAY", "0")))
    server.run()
