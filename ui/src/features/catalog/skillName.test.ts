import { describe, expect, it } from "vitest";

import { oneLine, skillTitle } from "./skillName";

describe("skillTitle", () => {
  it("takes the markdown's first title, else the id in words", () => {
    expect(skillTitle({ id: "web-research", body: "Intro\n\n# Web research\n\n## Steps" })).toBe("Web research");
    expect(skillTitle({ id: "meeting-minutes", body: "## Only a subtitle" })).toBe("Meeting minutes");
    expect(skillTitle({ id: "pdf_tools", body: "" })).toBe("Pdf tools");
  });

  it("shortens a description to its first line", () => {
    expect(oneLine("First line.\nSecond line.")).toBe("First line.");
    expect(oneLine("x".repeat(200))).toHaveLength(140);
  });
});
