import { describe, expect, it } from "vitest";

import { diffWords, words } from "./diff";

describe("diffWords", () => {
  it("marks the words removed and added between two rounds", () => {
    const parts = diffWords("Las abejas hacen miel dulce", "Las abejas fabrican miel");
    expect(parts).toEqual([
      { kind: "same", text: "Las abejas " },
      { kind: "removed", text: "hacen" },
      { kind: "added", text: "fabrican" },
      { kind: "same", text: " miel" },
      { kind: "removed", text: " dulce" },
    ]);
  });

  it("gives back the new text exactly, and the old one word for word", () => {
    const before = "uno dos tres\ncuatro";
    const after = "uno tres\ncuatro cinco";
    const parts = diffWords(before, after);
    const rebuild = (skip: string) => parts.filter((p) => p.kind !== skip).map((p) => p.text).join("");
    const squash = (t: string) => t.split(/\s+/).filter(Boolean).join(" ");
    expect(squash(rebuild("added"))).toBe(squash(before));
    expect(rebuild("removed")).toBe(after);
    expect(words("a  b")).toEqual(["a", "  ", "b"]);
  });

  it("keeps line breaks out of what changed", () => {
    const parts = diffWords("four food crops.\n\n2/ x", "four crops! b\n\n2/ x");
    for (const part of parts.filter((p) => p.kind !== "same")) expect(part.text).not.toMatch(/\n/);
  });

  it("finds no change between equal texts", () => {
    expect(diffWords("igual", "igual")).toEqual([{ kind: "same", text: "igual" }]);
  });
});
