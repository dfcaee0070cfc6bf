import { describe, expect, it } from "vitest";

import type { CatalogPersona } from "../../api";
import { STEPS, addOnOf, defaultChoice, stepIndex, toggleChoice } from "./steps";

const persona = (id: string, runsPrograms = false): CatalogPersona => ({
  id,
  name: id,
  description: `${id} does things`,
  toolPatterns: [`${id}_*`],
  tools: [],
  skills: [],
  enabled: false,
  runsPrograms,
  missing: [],
});

const catalog = [persona("web_researcher"), persona("software_engineer", true), persona("shell_runner", true), persona("content_writer"), { ...persona("browser_operator"), missing: ["mcp__playwright__*"] }];

describe("first run steps", () => {
  it("goes connect → specialists → sample", () => {
    expect(STEPS).toEqual(["connect", "specialists", "sample"]);
    expect(stepIndex("sample")).toBe(2);
  });

  it("pre-selects no specialist that runs programs, nor one whose tools are not installed", () => {
    expect(defaultChoice(catalog)).toEqual(["web_researcher", "content_writer"]);
  });

  it("names what a missing pattern needs", () => {
    expect(addOnOf("mcp__playwright__*")).toBe("Playwright");
    expect(addOnOf("mcp__my_server__*")).toBe("My_server");
    expect(addOnOf("web_fetch")).toBe("web_fetch");
  });

  it("toggles a specialist in and out, in catalog order", () => {
    const withEngineer = toggleChoice(catalog, ["content_writer", "web_researcher"], "software_engineer");
    expect(withEngineer).toEqual(["web_researcher", "software_engineer", "content_writer"]);
    expect(toggleChoice(catalog, withEngineer, "web_researcher")).toEqual(["software_engineer", "content_writer"]);
  });
});
