"""Downloads a model through Colmena's MCP server with the official Python MCP
SDK, as an AI client would: `model_library`, then `model_pull` with a
progress token (progress counts bytes up to the file's size), and the doors
a client must not open: a file path and a host that is not allowed.

Run by `crates/colmena-server/tests/model_download.rs`, which serves the
model from a loopback mirror. Usage: model_pull_check.py CONFIG_JSON with
  colmena   the `colmena` binary
  data_dir  the workspace
  mirror    COLMENA_MODEL_MIRROR for the server (the loopback file server)
  model     the library id to pull
It prints one JSON line of findings and exits non-zero on the first
expectation that does not hold.
"""

import json
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import Implementation


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


async def main(config):
    params = StdioServerParameters(
        command=config["colmena"],
        args=["--data-dir", config["data_dir"], "mcp"],
        env={
            "COLMENA_SECRET_BACKEND": "file",
            "COLMENA_MODEL_MIRROR": config["mirror"],
            "PATH": "/usr/bin:/bin",
        },
    )
    info = Implementation(name="claude-code", version="1.0.0")
    findings = {}
    async with Client(params, client_info=info, read_timeout_seconds=120) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        expect({"model_library", "model_pull"} <= tools, f"model tools missing: {tools}")

        library = await client.call_tool("model_library", {})
        expect(not library.is_error, f"model_library failed: {library.content}")
        entries = library.structured_content["result"]
        expect(any(m["id"] == config["model"] for m in entries), f"library: {entries}")

        steps = []

        async def on_progress(progress, total, message):
            steps.append((progress, total, message))

        pulled = await client.call_tool("model_pull", {"source": config["model"]},
                                        progress_callback=on_progress)
        expect(not pulled.is_error, f"model_pull failed: {pulled.content}")
        expect(pulled.structured_content["id"] == f"local/{config['model']}", f"pulled: {pulled.structured_content}")
        expect(steps, "no download progress")
        counts = [p for p, _, _ in steps]
        expect(counts == sorted(counts) and len(set(counts)) == len(counts), f"progress must grow: {counts}")
        findings["steps"] = len(steps)
        findings["last"] = steps[-1][0]
        findings["total"] = steps[-1][1]
        findings["message"] = steps[-1][2]

        # A client names a library model or a URL, never a file of this computer.
        path = await client.call_tool("model_pull", {"source": "/etc/passwd"})
        expect(path.is_error, f"a path was accepted: {path.structured_content}")
        findings["path"] = path.structured_content
        # A host that is not a download host is refused before any connection.
        elsewhere = await client.call_tool("model_pull", {"source": "https://downloads.invalid/model.gguf"})
        expect(elsewhere.is_error, f"another host was accepted: {elsewhere.structured_content}")
        findings["elsewhere"] = elsewhere.structured_content
    print(json.dumps(findings))


if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]))
