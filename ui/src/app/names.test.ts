import { describe, expect, it } from "vitest";

import i18n from "../i18n";
import { authorName, clientName, clientSubject, isYou, toClient } from "./names";

const en = i18n.getFixedT("en");
const es = i18n.getFixedT("es");

describe("clients by name, not id", () => {
  it("names every client the backend can send, in both languages", () => {
    const clients = ["ui", "cli", "http", "agent", "claude-code", "cursor", "claude-desktop", "cline", "other-mcp"];
    expect(clients.map((c) => clientName(en, c))).toEqual([
      "You, in Colmena",
      "You, from the command line",
      "A REST API client",
      "An agent",
      "Claude Code",
      "Cursor",
      "Claude Desktop",
      "Cline",
      "An MCP client",
    ]);
    expect(clients.map((c) => clientName(es, c))).toEqual([
      "Tú, en Colmena",
      "Tú, desde la línea de comandos",
      "Un cliente de la API REST",
      "Un agente",
      "Claude Code",
      "Cursor",
      "Claude Desktop",
      "Cline",
      "Un cliente MCP",
    ]);
    for (const c of clients) expect(clientName(es, c), c).not.toBe(c);
  });

  it("reads the free-text spellings a round may carry", () => {
    expect(toClient("mcp")).toBe("other-mcp");
    expect(clientName(en, "mcp")).toBe("An MCP client");
  });

  it("shows an id this build does not know as it came, rather than a wrong name", () => {
    expect(toClient("zed")).toBeNull();
    expect(clientName(en, "zed")).toBe("zed");
    expect(clientSubject(en, "zed")).toBe("zed");
  });

  it("tells the person's own actions from everyone else's", () => {
    expect(["ui", "cli", "claude-code", "agent", "http"].map(isYou)).toEqual([true, true, false, false, false]);
    expect(clientSubject(es, "agent")).toBe("Un agente");
  });
});

describe("people by name", () => {
  it("calls the person 'You' while their author still bears the workspace's id", () => {
    expect(authorName(en, { id: "owner", name: "owner", isOwner: true })).toBe("You");
    expect(authorName(es, { id: "owner", name: "owner", isOwner: true })).toBe("Tú");
    expect(authorName(en, { id: "owner", name: "Ana", isOwner: true })).toBe("Ana (you)");
    expect(authorName(es, { id: "guardia", name: "Guardia", isOwner: false })).toBe("Guardia");
  });
});
