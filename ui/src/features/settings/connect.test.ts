import { describe, expect, it } from "vitest";

import type { ClientConfig } from "../../api";
import { mintedFor, transportFor } from "./connect";

const minted: ClientConfig = {
  client: "cursor",
  transport: "http",
  author: "ana",
  text: '{"mcpServers": {}}',
  whereTo: "",
  needsToken: false,
  tokenMinted: true,
  endpoint: "http://127.0.0.1:7878/mcp",
};

describe("connecting an AI client", () => {
  it("connects Claude Desktop over stdio whatever was picked", () => {
    expect(transportFor("claude-desktop", "http")).toBe("stdio");
    expect(transportFor("cursor", "http")).toBe("http");
    expect(transportFor("claude-code", "stdio")).toBe("stdio");
  });

  it("shows a minted token only for the choice it was minted for", () => {
    expect(mintedFor(minted, { client: "cursor", transport: "http", author: "ana" })).toBe(minted);
    expect(mintedFor(minted, { client: "cursor", transport: "http", author: "beto" })).toBeNull();
    expect(mintedFor(minted, { client: "claude-code", transport: "http", author: "ana" })).toBeNull();
    expect(mintedFor(minted, { client: "cursor", transport: "stdio", author: "ana" })).toBeNull();
    expect(mintedFor(undefined, { client: "cursor", transport: "http", author: "ana" })).toBeNull();
  });
});
