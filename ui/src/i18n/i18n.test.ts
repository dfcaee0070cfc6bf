import { describe, expect, it } from "vitest";

import en from "./catalog.en";
import es from "./catalog.es";
import { flatten } from "./catalogs";

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();

describe("translation catalogs", () => {
  const english = flatten(en);
  const spanish = flatten(es);

  it("have exactly the same keys", () => {
    expect([...spanish.keys()].sort()).toEqual([...english.keys()].sort());
  });

  it("have no empty message", () => {
    for (const [key, text] of [...english, ...spanish]) {
      expect(text.trim(), key).not.toBe("");
    }
  });

  it("use the same placeholders in both languages", () => {
    for (const [key, text] of english) {
      expect(placeholders(spanish.get(key) ?? ""), key).toEqual(placeholders(text));
    }
  });

  it("translate what people read (not copies of the English)", () => {
    const same = [...english].filter(([key, text]) => spanish.get(key) === text && text.length > 12);
    // Brand and product names may stay; sentences may not.
    expect(same.map(([key]) => key)).toEqual([]);
  });
});
