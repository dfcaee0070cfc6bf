import { describe, expect, it } from "vitest";

import { draftOfInput, emptyRow, type McpDraft } from "./mcpDraft";
import { isReserved, originOf, referenceNames, reservedReferences, sentReferences } from "./mcpReferences";

const header = (name: string, value: string, secret = false) => ({ ...emptyRow(), name, value, secret });

const http = (url: string, headers: ReturnType<typeof header>[] = []): McpDraft => ({ ...draftOfInput(), kind: "http", url, headers });

describe("references in an MCP server's settings", () => {
  it("are read as the backend reads them", () => {
    expect(referenceNames("Bearer ${API_KEY} ${TEAM:-core} ${} ${a b} ${API_KEY} $HOME")).toEqual(["API_KEY", "TEAM"]);
    expect(isReserved("COLMENA_TOKEN")).toBe(true);
    expect(isReserved("colmena_bus_store")).toBe(true);
    expect(isReserved("MY_COLMENA_TOKEN")).toBe(false);
  });

  it("say the origin a URL server sends them to, through defaults or as written", () => {
    expect(originOf("https://x.example/mcp?team=${TEAM:-core}")).toBe("https://x.example");
    expect(originOf("${BASE:-https://api.example.com:8443}/mcp")).toBe("https://api.example.com:8443");
    expect(originOf("https://${MCP_HOST}/mcp")).toBe("https://${MCP_HOST}/mcp");
    const draft = http("https://x.example/mcp", [header("Authorization", "Bearer ${API_KEY}"), header("X-Key", "${SEALED_AS_WRITTEN}", true)]);
    expect(sentReferences(draft)).toEqual({ origin: "https://x.example", names: ["API_KEY"] });
    expect(sentReferences(http("https://x.example/mcp"))).toBeNull();
    expect(sentReferences({ ...draftOfInput(), command: "npx", env: [header("T", "${API_KEY}")] })).toBeNull();
  });

  it("find Colmena's own variables wherever the backend would resolve them", () => {
    expect(reservedReferences(http("https://x.example/mcp", [header("Authorization", "Bearer ${COLMENA_TOKEN}")]))).toEqual(["COLMENA_TOKEN"]);
    expect(reservedReferences({ ...draftOfInput(), command: "npx", args: "--store\n${COLMENA_BUS_STORE:-x}", cwd: "${HOME}" })).toEqual(["COLMENA_BUS_STORE"]);
    expect(sentReferences(http("https://x.example/${COLMENA_DATA_DIR}"))).toBeNull();
  });
});
