import { describe, expect, it } from "vitest";

import { listWindow } from "./listWindow";

const canvases = Array.from({ length: 250 }, (_, i) => ({ id: `c${i}` }));

describe("listWindow", () => {
  it("lists everything up to the limit", () => {
    expect(listWindow(canvases.slice(0, 40), 100)).toHaveLength(40);
  });
  it("lists the first ones past it, and the open canvas wherever it is", () => {
    expect(listWindow(canvases, 100).map((c) => c.id)).toEqual(canvases.slice(0, 100).map((c) => c.id));
    const withOpen = listWindow(canvases, 100, "c230");
    expect(withOpen).toHaveLength(101);
    expect(withOpen.at(-1)?.id).toBe("c230");
    expect(listWindow(canvases, 100, "c5")).toHaveLength(100);
  });
});
