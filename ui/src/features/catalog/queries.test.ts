import { describe, expect, it } from "vitest";

import { parsePatterns } from "./queries";

describe("parsePatterns", () => {
  it("splits on commas and spaces, drops empties and repeats", () => {
    expect(parsePatterns("web_*, fs_read  fs_read,,git_*")).toEqual(["web_*", "fs_read", "git_*"]);
    expect(parsePatterns("   ")).toEqual([]);
  });
});
