import { describe, expect, it } from "vitest";

import { loadView, viewElement } from "./viewModules";

const LAZY = Symbol.for("react.lazy");
const isLazy = (type: unknown) => (type as { $$typeof?: symbol }).$$typeof === LAZY;

describe("views on screen", () => {
  it("render a view whose code arrived as its own component, never suspending", async () => {
    await loadView("#/memory/someone");
    const element = viewElement("memory");
    expect(isLazy(element.type)).toBe(false);
    expect(viewElement("memory").type).toBe(element.type);
  });

  it("keep the lazy component a view first rendered with, once its code is here", async () => {
    const first = viewElement("activity").type;
    expect(isLazy(first)).toBe(true);
    await loadView("#/activity");
    expect(viewElement("activity").type).toBe(first);
  });

  it("load the default view for a hash that names none", async () => {
    await loadView("#/no-such-view");
    expect(isLazy(viewElement("canvas").type)).toBe(false);
  });
});
