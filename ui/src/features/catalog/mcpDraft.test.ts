import { describe, expect, it } from "vitest";

import type { McpServer } from "../../api";
import { draftOfServer, inputOf, keepsSource, parseArgs, serverOfTool, timeoutOf, transportSummary, varInput } from "./mcpDraft";

const server = (transport: McpServer["transport"]): McpServer =>
  ({
    id: "github",
    name: "GitHub",
    transport,
    enabled: true,
    timeoutSeconds: 120,
    preset: null,
    status: { state: "stopped", error: null, stderrTail: null, exitCode: null, since: null },
    tools: [],
    createdAt: "",
    updatedAt: "",
  }) as McpServer;

describe("the MCP server draft", () => {
  it("keeps a stored secret unless it is retyped, and sends plain values as typed", () => {
    const stored = server({
      kind: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: [
        { name: "GITHUB_TOKEN", value: "ghp_…1234", secret: true },
        { name: "LOG", value: "debug", secret: false },
      ],
      cwd: null,
    });
    const draft = draftOfServer(stored);
    // The mask is never put in the field, only shown as its placeholder.
    expect(draft.env[0]).toMatchObject({ value: "", mask: "ghp_…1234", secret: true });
    const kept = inputOf(draft, { enabled: true, preset: null });
    expect(kept.transport).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: [
        { name: "GITHUB_TOKEN", value: null, secret: true },
        { name: "LOG", value: "debug", secret: false },
      ],
      cwd: null,
    });
    expect(varInput({ ...draft.env[0]!, value: "ghp_new" })).toEqual({ name: "GITHUB_TOKEN", value: "ghp_new", secret: true });
    // A new secret row with nothing typed is an empty value, not "keep".
    expect(varInput({ key: "k", name: "KEY", value: "", secret: true, mask: null })).toEqual({ name: "KEY", value: "", secret: true });
    expect(varInput({ key: "k", name: " ", value: "", secret: false, mask: null })).toBeNull();
  });

  it("reads arguments one per line and the time limit as whole seconds", () => {
    expect(parseArgs("-y\r\n@playwright/mcp\n\n  \n--headless")).toEqual(["-y", "@playwright/mcp", "--headless"]);
    expect(timeoutOf("")).toBeNull();
    expect(timeoutOf(" 30 ")).toBe(30);
    expect(timeoutOf("2.5")).toBe("invalid");
    expect(timeoutOf("-1")).toBe("invalid");
    const http = draftOfServer(server({ kind: "http", url: "https://mcp.example.com/mcp", headers: [] }));
    expect(inputOf({ ...http, timeout: "45" }, { enabled: false, preset: "x" })).toEqual({
      name: "GitHub",
      transport: { kind: "http", url: "https://mcp.example.com/mcp", headers: [] },
      enabled: false,
      timeoutSeconds: 45,
      preset: "x",
    });
  });

  it("shows a command line in one line, quoting what a shell would split", () => {
    expect(transportSummary({ kind: "stdio", command: "/opt/bin/srv", args: ["stdio", "my folder", "it's"], env: [], cwd: null })).toBe(
      "/opt/bin/srv stdio 'my folder' 'it'\\''s'",
    );
    expect(transportSummary({ kind: "http", url: "https://x.test/mcp", headers: [] })).toBe("https://x.test/mcp");
  });
});

describe("a tool's source", () => {
  it("is the middle part of an MCP tool's id", () => {
    expect(serverOfTool("mcp__everything__echo")).toBe("everything");
    expect(serverOfTool("mcp__my_server__get__item")).toBe("my_server");
    expect(serverOfTool("web_search")).toBeNull();
  });

  it("filters by source and by one server", () => {
    const echo = { id: "mcp__everything__echo", source: "mcp" as const };
    const fs = { id: "mcp__files__read", source: "mcp" as const };
    const web = { id: "web_search", source: "builtin" as const };
    const keep = (filter: Parameters<typeof keepsSource>[0]) => [echo, fs, web].filter((tool) => keepsSource(filter, tool)).map((tool) => tool.id);
    expect(keep("all")).toEqual(["mcp__everything__echo", "mcp__files__read", "web_search"]);
    expect(keep("builtin")).toEqual(["web_search"]);
    expect(keep("mcp")).toEqual(["mcp__everything__echo", "mcp__files__read"]);
    expect(keep("mcp:files")).toEqual(["mcp__files__read"]);
  });
});
