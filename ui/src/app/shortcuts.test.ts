import { describe, expect, it, vi } from "vitest";

import { createActionRegistry, formatShortcut, isApple, matchShortcut, withShortcut, type KeyLike } from "./shortcuts";

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

describe("matchShortcut", () => {
  it("reads Ctrl+K, N, S, Enter and the view digits", () => {
    expect(matchShortcut(key("k", { ctrlKey: true }))).toBe("palette");
    expect(matchShortcut(key("K", { ctrlKey: true }))).toBe("palette");
    expect(matchShortcut(key("n", { ctrlKey: true }))).toBe("new");
    expect(matchShortcut(key("s", { ctrlKey: true }))).toBe("save");
    expect(matchShortcut(key("Enter", { ctrlKey: true }))).toBe("run");
    expect(matchShortcut(key("3", { ctrlKey: true }))).toBe("view-3");
  });

  it("ignores plain keys, other modifiers and keys that are not ours", () => {
    expect(matchShortcut(key("k"))).toBeNull();
    expect(matchShortcut(key("k", { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(matchShortcut(key("n", { ctrlKey: true, altKey: true }))).toBeNull();
    expect(matchShortcut(key("0", { ctrlKey: true }))).toBeNull();
    expect(matchShortcut(key("x", { ctrlKey: true }))).toBeNull();
  });

  it("uses ⌘ instead of Ctrl on a Mac", () => {
    expect(isApple("MacIntel")).toBe(true);
    expect(isApple("Linux x86_64")).toBe(false);
    expect(matchShortcut(key("k", { metaKey: true }), true)).toBe("palette");
    expect(matchShortcut(key("k", { ctrlKey: true }), true)).toBeNull();
    expect(matchShortcut(key("k", { metaKey: true }), false)).toBeNull();
  });
});

describe("formatShortcut", () => {
  it("writes the keys as people read them", () => {
    expect(formatShortcut("new")).toBe("Ctrl+N");
    expect(formatShortcut("run")).toBe("Ctrl+Enter");
    expect(formatShortcut("view-2")).toBe("Ctrl+2");
    expect(formatShortcut("palette", true)).toBe("⌘K");
    expect(formatShortcut("run", true)).toBe("⌘↩");
    expect(withShortcut("New agent", "new")).toBe("New agent (Ctrl+N)");
  });
});

describe("the action registry", () => {
  it("runs the newest action of the view or of one of its parts, and forgets withdrawn ones", () => {
    const registry = createActionRegistry();
    const older = vi.fn();
    const newer = vi.fn();
    registry.register("new", "catalog/agents", older);
    const withdraw = registry.register("new", "catalog/skills", newer);
    expect(registry.trigger("new", "catalog")).toBe(true);
    expect(newer).toHaveBeenCalledTimes(1);
    withdraw();
    registry.trigger("new", "catalog");
    expect(older).toHaveBeenCalledTimes(1);
    expect(registry.trigger("new", "cat")).toBe(false);
    expect(registry.trigger("run", "catalog")).toBe(false);
    expect(registry.has("new", "catalog")).toBe(true);
    expect(registry.has("new", "swarms")).toBe(false);
  });

  it("keeps a request for a part that is still opening, and runs it when it registers", () => {
    const registry = createActionRegistry();
    const skills = vi.fn();
    registry.register("new", "catalog/skills", skills);
    registry.request("new", "catalog/agents");
    // The skills tab is still on screen: its "new" is not the one asked for.
    expect(skills).not.toHaveBeenCalled();
    const agents = vi.fn();
    registry.register("new", "catalog/agents", agents);
    expect(agents).toHaveBeenCalledTimes(1);
    // Used up: a later registration does not run it again.
    const again = vi.fn();
    registry.register("new", "catalog/agents", again);
    expect(again).not.toHaveBeenCalled();
  });

  it("passes the argument and runs at once when the scope is there; a new request replaces a kept one", () => {
    const registry = createActionRegistry();
    const open = vi.fn();
    registry.register("open", "catalog/agents", open);
    registry.request("open", "catalog/agents", "diseno");
    expect(open).toHaveBeenCalledWith("diseno");

    registry.request("new", "canvas");
    registry.request("new", "swarms");
    const canvas = vi.fn();
    registry.register("new", "canvas", canvas);
    expect(canvas).not.toHaveBeenCalled();
  });
});
