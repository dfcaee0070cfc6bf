import { describe, expect, it } from "vitest";

import type { Round } from "../../api";
import { diffPhrases, diffWords, readableText, roundAuthor, settingChanges, words } from "./diff";

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

describe("diffPhrases", () => {
  it("joins changes a word apart into one phrase", () => {
    expect(diffPhrases("Las abejas hacen miel dulce", "Las abejas fabrican miel")).toEqual([
      { kind: "same", text: "Las abejas " },
      { kind: "removed", text: "hacen miel dulce" },
      { kind: "added", text: "fabrican miel" },
    ]);
    expect(diffPhrases("the quick brown fox jumps over the lazy dog", "the slow brown cat jumps over the lazy dog")).toEqual([
      { kind: "same", text: "the " },
      { kind: "removed", text: "quick brown fox" },
      { kind: "added", text: "slow brown cat" },
      { kind: "same", text: " jumps over the lazy dog" },
    ]);
  });

  it("keeps changes far apart, or in other lines or sentences, apart", () => {
    const far = diffPhrases("one two three four five six", "uno two three four five seis");
    expect(far.filter((p) => p.kind !== "same")).toEqual([
      { kind: "removed", text: "one" },
      { kind: "added", text: "uno" },
      { kind: "removed", text: "six" },
      { kind: "added", text: "seis" },
    ]);
    const lines = diffPhrases("alpha\nbeta", "gamma\ndelta");
    expect(lines.filter((p) => p.kind === "same").map((p) => p.text)).toEqual(["\n"]);
    const sentences = diffPhrases("Hace sol hoy. Mañana llueve", "Hace frío hoy. Mañana nieva");
    expect(sentences.filter((p) => p.kind === "removed").map((p) => p.text)).toEqual(["sol", "llueve"]);
  });

  it("changes a sentence at a paragraph's end without taking the paragraph break", () => {
    const parts = diffPhrases(
      "## Bees\n\n1/ Bees **pollinate** most food crops.\n\n2/ Their decline.",
      "## Bees\n\n1/ Bees **pollinate** three in four food crops, says the FAO.\n\n2/ Their decline.",
    );
    expect(parts).toEqual([
      { kind: "same", text: "## Bees\n\n1/ Bees **pollinate** " },
      { kind: "removed", text: "most food crops." },
      { kind: "added", text: "three in four food crops, says the FAO." },
      { kind: "same", text: "\n\n2/ Their decline." },
    ]);
  });

  it("still gives back the new text exactly and the old one word for word", () => {
    const before = "Uno dos tres cuatro.\n\nCinco seis siete ocho nueve";
    const after = "Uno DOS tres CUATRO.\n\nCinco seis siete 8 nueve diez";
    const parts = diffPhrases(before, after);
    const rebuild = (skip: string) => parts.filter((p) => p.kind !== skip).map((p) => p.text).join("");
    const squash = (t: string) => t.split(/\s+/).filter(Boolean).join(" ");
    expect(rebuild("removed")).toBe(after);
    expect(squash(rebuild("added"))).toBe(squash(before));
    for (const part of parts.filter((p) => p.kind !== "same")) expect(part.text).not.toMatch(/\n/);
  });

  it("finds nothing to group in equal texts", () => {
    expect(diffPhrases("igual que antes", "igual que antes")).toEqual([{ kind: "same", text: "igual que antes" }]);
  });
});

const round = (over: Partial<Round>): Round => ({
  id: "r",
  variantId: "v",
  index: 0,
  output: "",
  promptSnapshot: "Escribe un hilo",
  styleSnapshot: "cálido",
  provider: "scripted",
  model: "gpt-test",
  promptTokens: 1,
  completionTokens: 1,
  latencyMs: 1,
  client: "ui",
  generatedAt: "2026-12-02T05:00:00Z",
  byHand: false,
  ...over,
});

describe("settingChanges", () => {
  it("names the prompt, style and model that differ, and nothing else", () => {
    expect(settingChanges(round({}), round({ index: 1 }))).toEqual([]);
    expect(settingChanges(round({}), round({ promptSnapshot: "Escribe un post", model: "otro" }))).toEqual([
      { field: "prompt", before: "Escribe un hilo", after: "Escribe un post" },
      { field: "model", before: "scripted/gpt-test", after: "scripted/otro" },
    ]);
    expect(settingChanges(round({ styleSnapshot: "" }), round({ styleSnapshot: "seco" }))).toEqual([{ field: "style", before: "", after: "seco" }]);
  });

  it("says a round written by hand had no model", () => {
    expect(settingChanges(round({}), round({ byHand: true, provider: "", model: "" }))).toEqual([
      { field: "model", before: "scripted/gpt-test", after: "" },
    ]);
  });

  it("tells a round an AI client wrote itself from one written by hand", () => {
    const byClient = round({ provider: "", model: "", client: "claude-code" });
    expect(roundAuthor(byClient)).toEqual({ kind: "client", client: "claude-code" });
    expect(roundAuthor(round({ byHand: true, provider: "", model: "" }))).toEqual({ kind: "hand" });
    expect(roundAuthor(round({}))).toEqual({ kind: "model", model: "scripted/gpt-test" });
    expect(settingChanges(round({ byHand: true, provider: "", model: "" }), byClient)).toEqual([
      { field: "model", before: "", after: "client:claude-code" },
    ]);
  });
});

describe("readableText", () => {
  it("takes out the marks that only format, keeping words and lines", () => {
    expect(readableText("## Bees\n\nThey **pollinate** most *crops*.\n- one\n> quoted `code`")).toBe(
      "Bees\n\nThey pollinate most crops.\n• one\nquoted code",
    );
    expect(readableText("See [the FAO](https://fao.org) ![a hive](h.png)")).toBe("See the FAO a hive");
  });

  it("keeps an underscore inside a word, as Markdown does", () => {
    expect(readableText("call notify_user and _stress_ __this__")).toBe("call notify_user and stress this");
  });
});
