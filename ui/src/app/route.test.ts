import { describe, expect, it } from "vitest";

import { parseRoute } from "./route";
import { resolveTheme } from "./preferences";

describe("parseRoute", () => {
  it("reads the view and the section", () => {
    expect(parseRoute("#/settings/providers")).toEqual({ view: "settings", section: "providers" });
    expect(parseRoute("#/settings")).toEqual({ view: "settings", section: null });
    expect(parseRoute("")).toEqual({ view: "", section: null });
  });
});

describe("resolveTheme", () => {
  it("follows the system only when asked to", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
  });
});
