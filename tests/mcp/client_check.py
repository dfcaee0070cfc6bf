"""Drives Colmena's MCP server with the official Python MCP SDK, as Claude
Code, Cursor or Claude Desktop would: over stdio (the client starts
`colmena mcp`) or over streamable HTTP (`/mcp` with a bearer token).

Run by `crates/colmena-server/tests/mcp_python.rs`, which prepares the
workspace (a scripted model, an agent, two authors) and checks the store
afterwards. Usage: client_check.py CONFIG_JSON, where the config names:
  transport   "stdio" or "http"
  colmena     the `colmena` binary (stdio)
  data_dir    the workspace (stdio)
  url         the /mcp endpoint (http)
  token       author A's bearer token (a person: the workspace owner)
  token_b     author B's bearer token (a role)
  author_a, author_b   their names
  client_name the clientInfo name to declare (e.g. "claude-code")
  agent       an agent whose model answers slowly (for progress + cancel)
  acting_agent  an agent with a tool that runs programs (its model asks
                to run one; the Rust side denies it as the person would)

It prints one JSON line of findings (the Rust side reads it) and exits
non-zero on the first expectation that does not hold.
"""

import json
import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import Implementation

CANVAS_TOOLS = {
    "session_create", "session_list", "session_get", "session_update", "session_delete",
    "session_add_item", "session_remove_item", "session_clear_selection",
    "session_add_variant", "session_update_variant", "session_remove_variant",
    "session_select_round", "session_generate_variant", "session_generate_all",
    "session_variant_rounds", "session_export_variant", "session_save_preset",
    "session_list_sources", "session_write_round",
}
BUS_TOOLS = {"send_message", "read_inbox", "list_sent", "search_messages", "read_thread", "mark_unread", "list_authors"}
HIVE_TOOLS = {
    "list_agents", "list_swarms", "run_agent", "run_swarm",
    "memory_write", "memory_read", "memory_search", "search_catalog",
}
NO_ARGUMENT_TOOLS = {"session_list", "session_list_sources", "list_agents", "list_swarms", "model_library", "list_authors"}


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def client_for(config, token, name):
    info = Implementation(name=name, version="1.0.0")
    if config["transport"] == "stdio":
        env = {"COLMENA_TOKEN": token, "COLMENA_SECRET_BACKEND": "file", "PATH": "/usr/bin:/bin"}
        # Where the bus lives, as a client's configuration would say it
        # (the contract suites also run against PostgreSQL).
        for name in ("COLMENA_BUS_STORE", "COLMENA_BUS_SCHEMA"):
            if name in os.environ:
                env[name] = os.environ[name]
        params = StdioServerParameters(
            command=config["colmena"],
            args=["--data-dir", config["data_dir"], "mcp"],
            env=env,
        )
        return Client(params, client_info=info, read_timeout_seconds=60)
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(config["url"], http_client=http), client_info=info, read_timeout_seconds=60)


def ok(result, what):
    expect(not result.is_error, f"{what} failed: {result.content}")
    expect(isinstance(result.structured_content, dict), f"{what}: no structured content")
    return result.structured_content


def error_of(result, what):
    expect(result.is_error, f"{what} should have failed: {result.structured_content}")
    return result.structured_content, result.content[0].text


async def main(config):
    findings = {}
    async with client_for(config, config["token"], config["client_name"]) as client:
        findings["protocol"] = str(client.session.protocol_version) if hasattr(client, "session") else None

        # tools/list: the 18 canvas tools, the 3 bus tools, the hive tools,
        # each with a real schema.
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        expect(CANVAS_TOOLS <= tools.keys(), f"canvas tools missing: {CANVAS_TOOLS - tools.keys()}")
        expect(BUS_TOOLS <= tools.keys(), f"bus tools missing: {BUS_TOOLS - tools.keys()}")
        expect(HIVE_TOOLS <= tools.keys(), f"hive tools missing: {HIVE_TOOLS - tools.keys()}")
        for name, tool in tools.items():
            schema = tool.input_schema
            expect(schema.get("type") == "object", f"{name}: schema is not an object")
            expect(schema.get("additionalProperties") is False, f"{name}: accepts unknown arguments")
            if name not in NO_ARGUMENT_TOOLS:
                expect(schema.get("properties"), f"{name}: schema has no properties")
        expect("sessionId" in tools["session_add_variant"].input_schema["required"], "sessionId is required")
        expect("presetId" in tools["session_add_variant"].input_schema["properties"], "presetId")
        expect(set(tools["send_message"].input_schema["required"]) == {"to_author_name", "body"}, "send_message")
        expect("from" not in tools["send_message"].input_schema["properties"], "no sender argument")
        findings["tools"] = len(tools)

        # A whole canvas lifecycle.
        canvas = ok(await client.call_tool("session_create", {"name": "Abejas por MCP"}), "create")
        sid = canvas["id"]
        ok(await client.call_tool("session_add_item", {
            "sessionId": sid, "title": "Informe FAO", "snippet": "Las abejas polinizan el 75 %",
            "metrics": {"shares": 12},
        }), "add_item")
        v1 = ok(await client.call_tool("session_add_variant", {
            "sessionId": sid, "presetId": "x-thread", "prompt": "Tono serio",
        }), "add_variant 1")["id"]
        v2 = ok(await client.call_tool("session_add_variant", {
            "sessionId": sid, "presetId": "tldr-brief",
        }), "add_variant 2")["id"]
        steps = []

        async def on_progress(progress, total, message):
            steps.append((progress, message))

        outcome = ok(await client.call_tool("session_generate_all", {"sessionId": sid},
                                            progress_callback=on_progress), "generate_all")
        expect(len(outcome["done"]) == 2 and not outcome["failed"], f"generate_all: {outcome}")
        expect(steps and any("done" in (m or "") for _, m in steps), f"no generation progress: {steps}")
        findings["generation_progress"] = len(steps)
        again = ok(await client.call_tool("session_generate_variant", {"sessionId": sid, "variantId": v1}),
                   "generate_variant")
        expect(again["index"] == 1, f"second round index: {again}")
        rounds = ok(await client.call_tool("session_variant_rounds", {"variantId": v1}), "rounds")["result"]
        expect(len(rounds) == 2, f"two rounds: {rounds}")
        selected = ok(await client.call_tool("session_select_round", {"variantId": v1, "roundIndex": 0}),
                      "select_round")
        expect(selected["activeRound"] == 0 and selected["roundCount"] == 2, f"select_round: {selected}")
        exported = ok(await client.call_tool("session_export_variant", {
            "sessionId": sid, "variantId": v1, "format": "markdown",
        }), "export")
        expect(rounds[0]["output"].strip() in exported["markdown"], f"export: {exported}")
        mine = ok(await client.call_tool("session_write_round", {
            "sessionId": sid, "variantId": v1, "text": "1/ Mi versión, a mano.",
        }), "write_round")
        # An AI client's round is its own, not the person's hand: stored under its client.
        expect(mine["byHand"] is False and mine["index"] == 2, f"write_round: {mine}")
        findings["write_round_client"] = mine["client"]
        findings["write_round_by_hand"] = mine["byHand"]
        preset = ok(await client.call_tool("session_save_preset", {
            "name": "Hilo serio", "prompt": "Tono serio", "typeTag": "thread",
        }), "save_preset")
        expect(preset["name"] == "Hilo serio", f"preset: {preset}")
        detail = ok(await client.call_tool("session_get", {"sessionId": sid}), "get")
        expect(len(detail["variants"]) == 2 and len(detail["items"]) == 1, f"get: {detail}")
        ok(await client.call_tool("session_remove_variant", {"sessionId": sid, "variantId": v2}), "remove_variant")
        ok(await client.call_tool("session_delete", {"sessionId": sid}), "delete")
        gone, text = error_of(await client.call_tool("session_get", {"sessionId": sid}), "get after delete")
        expect(gone["code"] == "not_found", f"deleted canvas: {gone}")
        findings["canvas_deleted"] = sid

        # Bad arguments: isError with a clear message, never a protocol crash.
        missing, text = error_of(await client.call_tool("session_get", {}), "get without sessionId")
        expect(missing["code"] == "validation" and "sessionId" in text, f"missing: {text}")
        wrong, text = error_of(await client.call_tool("session_select_round", {"variantId": "x", "roundIndex": "two"}),
                               "select_round with text")
        expect(wrong["code"] == "validation", f"wrong type: {text}")
        unknown, text = error_of(await client.call_tool("session_create", {"name": "x", "owner": "beto"}),
                                 "unknown argument")
        expect("owner" in text, f"unknown argument: {text}")
        bad_priority, text = error_of(await client.call_tool("send_message", {
            "to_author_name": config["author_b"], "body": "x", "priority": "very"}), "bad priority")
        expect(bad_priority["code"] == "validation", f"bad priority: {text}")
        findings["bad_arguments"] = "isError"

        # The directory: who is on the bus, to address a message by name.
        directory = ok(await client.call_tool("list_authors", {}), "list_authors")["result"]
        expect(config["author_b"] in [a["name"] for a in directory], f"directory: {directory}")
        expect(all(set(a) == {"id", "name", "kind"} for a in directory), f"directory fields: {directory}")

        # The bus: the sender is always the token's author.
        spoof, text = error_of(await client.call_tool("send_message", {
            "to_author_name": config["author_b"], "body": "soy Beto", "from": config["author_b"],
        }), "send_message naming a sender")
        expect("from" in text, f"spoofing argument: {text}")
        sent = ok(await client.call_tool("send_message", {
            "to_author_name": config["author_b"], "body": f"hola por {config['transport']}", "priority": "normal",
        }), "send_message")
        expect(sent["from"] == config["author_a_id"], f"sender: {sent}")
        listed_sent = ok(await client.call_tool("list_sent", {}), "list_sent")["result"]
        expect(any(m["id"] == sent["id"] for m in listed_sent), "list_sent shows it")
        findings["sent"] = sent["id"]
        # At most once: a retry with the sender's own message_id answers the
        # message already sent; the same id for other mail is a conflict.
        once = {
            "to_author_name": config["author_b"], "body": f"una vez por {config['transport']}",
            "message_id": f"py-{config['transport']}-once",
        }
        first = ok(await client.call_tool("send_message", once), "send_message with a message_id")
        again = ok(await client.call_tool("send_message", once), "send_message again with its message_id")
        expect(again["id"] == first["id"] and again["created_at"] == first["created_at"], f"retry: {again}")
        reused, text = error_of(await client.call_tool("send_message", {**once, "body": "otra cosa"}),
                                "a message_id reused for other mail")
        expect(reused["code"] == "conflict", f"message_id reused: {text}")
        findings["once"] = once["body"]

        # Memory for the caller's own user, and the catalog.
        ok(await client.call_tool("memory_write", {"title": "presupuesto", "content": "5000 euros"}), "memory_write")
        found = ok(await client.call_tool("memory_search", {"query": "presupuesto"}), "memory_search")["result"]
        expect(found and found[0]["title"] == "presupuesto", f"memory_search: {found}")
        agents = ok(await client.call_tool("list_agents", {}), "list_agents")["result"]
        expect(any(a["id"] == config["agent"] for a in agents), f"list_agents: {agents}")
        ok(await client.call_tool("list_swarms", {}), "list_swarms")
        ok(await client.call_tool("search_catalog", {"query": "fetch"}), "search_catalog")

        # An agent whose tools act runs, but the permission gate asks the
        # person before the command: the client hears that the run waits,
        # and the person's denial reaches the model.
        gate_steps = []

        async def on_gate_progress(progress, total, message):
            gate_steps.append(message or "")

        asked = ok(await client.call_tool("run_agent", {
            "agent_id": config["acting_agent"], "prompt": "Crea el fichero"},
            progress_callback=on_gate_progress), "run an acting agent")
        expect("No me dejaron" in (asked.get("output") or ""), f"acting agent: {asked}")
        expect(any("waits for a person" in m for m in gate_steps), f"gate progress: {gate_steps}")
        expect(any("cli_exec denied" in m for m in gate_steps), f"gate progress: {gate_steps}")
        findings["acting_denied"] = True

        # A run streams progress and stops when the client cancels.
        run_steps = []
        cancelled_after = anyio.Event()

        async def on_run_progress(progress, total, message):
            run_steps.append(message)
            if len(run_steps) >= 4:
                cancelled_after.set()

        async with anyio.create_task_group() as tg:
            async def run():
                await client.call_tool("run_agent", {"agent_id": config["agent"], "prompt": "Escribe largo"},
                                       progress_callback=on_run_progress)

            tg.start_soon(run)
            with anyio.fail_after(30):
                await cancelled_after.wait()
            tg.cancel_scope.cancel()
        expect(any("started" in (m or "") for m in run_steps), f"run progress: {run_steps}")
        findings["run_progress"] = run_steps[:4]
        # The connection still works after a cancel.
        ok(await client.call_tool("session_list", {}), "after cancel")

    # B reads its inbox with its own token: the message is from A.
    async with client_for(config, config["token_b"], "cursor") as other:
        inbox = ok(await other.call_tool("read_inbox", {}), "read_inbox")["result"]
        mine = [m for m in inbox if m["id"] == findings["sent"]]
        expect(mine and mine[0]["from"] == config["author_a_id"], f"inbox of B: {inbox}")
        expect(mine[0]["read_at"] is not None, "read_inbox marks read")
        again = ok(await other.call_tool("read_inbox", {}), "read_inbox again")["result"]
        expect(not any(m["id"] == findings["sent"] for m in again), "read once")
        # B answers in the thread, reads it back, and keeps A's message
        # for later (unread again).
        answer = ok(await other.call_tool("send_message", {
            "to_author_name": config["author_a_id"], "body": "recibido", "reply_to": findings["sent"],
        }), "reply in the thread")
        expect(answer["reply_to"] == findings["sent"], f"reply_to: {answer}")
        thread = ok(await other.call_tool("read_thread", {"message_id": answer["id"]}), "read_thread")["result"]
        expect([m["id"] for m in thread] == [findings["sent"], answer["id"]], f"thread: {thread}")
        marked = ok(await other.call_tool("mark_unread", {"ids": [findings["sent"]]}), "mark_unread")
        expect(marked["marked"] == 1, f"mark_unread: {marked}")
        unread = ok(await other.call_tool("read_inbox", {}), "read_inbox after mark_unread")["result"]
        expect(any(m["id"] == findings["sent"] for m in unread), "unread again")
        findings["thread"] = len(thread)
        # A role's token reaches the bus, not the people's canvases,
        # memories or runs.
        for tool, arguments in [
            ("memory_search", {"query": "presupuesto"}),
            ("session_list", {}),
            ("session_create", {"name": "de un rol"}),
            ("run_agent", {"agent_id": config["agent"], "prompt": "hola"}),
        ]:
            refused, text = error_of(await other.call_tool(tool, arguments), f"{tool} by a role")
            expect(refused["code"] == "forbidden" and "role" in text, f"{tool} by a role: {text}")
        findings["role_refused"] = True

    print(json.dumps(findings))


if __name__ == "__main__":
    try:
        anyio.run(main, json.loads(sys.argv[1]))
    except AssertionError as failure:
        print(f"expectation failed: {failure}", file=sys.stderr)
        sys.exit(1)
