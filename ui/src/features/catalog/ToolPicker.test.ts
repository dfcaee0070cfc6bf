import { describe, expect, it } from "vitest";

import type { Tool } from "../../api";
import { isPattern, suggestTools } from "./ToolPicker";

const tool = (id: string, description: string, active = true) => ({ id, displayName: id, description, active }) as unknown as Tool;

describe("suggestTools", () => {
  const tools = [tool("fs_read", "Reads a file"), tool("web_fetch", "Fetches a page"), tool("cli_exec", "Runs a program", false), tool("web_search", "Searches the web for a page")];

  it("offers matching tools not yet chosen, name hits before description hits", () => {
    expect(suggestTools(tools, [], "web").map((t) => t.id)).toEqual(["web_fetch", "web_search"]);
    expect(suggestTools(tools, ["web_fetch"], "page").map((t) => t.id)).toEqual(["web_search"]);
  });

  it("puts switched-off tools after active ones", () => {
    expect(suggestTools(tools, [], "").map((t) => t.id)).toEqual(["fs_read", "web_fetch", "web_search", "cli_exec"]);
  });

  it("tells patterns from tool ids", () => {
    expect(isPattern("web_*")).toBe(true);
    expect(isPattern("fs_rea?")).toBe(true);
    expect(isPattern("web_fetch")).toBe(false);
  });
});
