// "1 exports" (issue 12, item 6): a number next to a noun must go through
// i18next's plural forms. These checks read every message of both
// catalogs, so a new count string with the same mistake fails here.

import { describe, expect, it } from "vitest";

import i18n from ".";
import en from "./catalog.en";
import es from "./catalog.es";
import { flatten } from "./catalogs";

const PLURAL = /_(zero|one|two|few|many|other)$/;
const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]);

/** Nouns the app counts, in the singular-less form a bug would show. */
const COUNTED = {
  en: /\b1 (items|variants|rounds|exports|tools|skills|specialists|agents|members|tokens|messages|models|minutes|hours|days|runs|calls|results|memories|canvases|sources|steps|patterns|servers)\b/,
  es: /\b1 (elementos|variantes|rondas|exportaciones|herramientas|habilidades|especialistas|agentes|miembros|tokens|mensajes|modelos|minutos|horas|días|ejecuciones|llamadas|resultados|recuerdos|lienzos|fuentes|pasos|patrones|servidores)\b/,
};

describe.each([
  ["en", en],
  ["es", es],
] as const)("count strings in %s", (lang, catalog) => {
  const messages = flatten(catalog);

  it("put a counted {{count}} only in plural forms, each with its _one and _other", () => {
    const wrong: string[] = [];
    for (const [key, text] of messages) {
      // "{{count}} items" counts a noun; "Round 2 of {{count}}" does not.
      if (!/\{\{\s*count\s*\}\}\s*\p{L}/u.test(text)) continue;
      const base = key.replace(PLURAL, "");
      if (base === key || !messages.has(`${base}_one`) || !messages.has(`${base}_other`)) wrong.push(key);
    }
    expect(wrong).toEqual([]);
  });

  it("never read '1 <plural noun>' when every number in them is 1", () => {
    const wrong: string[] = [];
    for (const [key, text] of messages) {
      const names = placeholders(text);
      if (names.length === 0 && !PLURAL.test(key)) continue;
      const values = Object.fromEntries(names.map((name) => [name, 1]));
      const shown = String(i18n.t(key.replace(PLURAL, ""), { ...values, count: 1, lng: lang }));
      if (COUNTED[lang].test(shown)) wrong.push(`${key}: ${shown}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("count strings", () => {
  it("count each number of a sentence on its own", () => {
    expect(i18n.t("setup.summary", { agents: 1, tools: 3, skills: 1, lng: "en" })).toBe("1 specialist, 3 tools and 1 skill will be active.");
    expect(i18n.t("runs.usage", { input: 1, output: 5, lng: "es" })).toBe("1 token de entrada · 5 de salida");
    expect(i18n.t("console.exports7d", { count: 1, lng: "en" })).toBe("export in the last 7 days");
  });
});
