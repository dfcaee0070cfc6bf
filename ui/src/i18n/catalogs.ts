// The translation catalogs: `locales/<lang>.json` plus every
// `locales/<lang>/<area>.json`, merged key by key. One file per area keeps
// each feature's strings next to each other and out of one huge file.
//
// Each language is its own chunk (`catalog.en.ts`, `catalog.es.ts`): the
// window loads only the one it speaks before its first frame, the other
// when the person switches (issue 16: both were 127 kB of every start).

import type { Language } from "../api/prefs";

export type Catalog = { [key: string]: string | Catalog };

/** Each language's catalog, fetched on first use. */
export const CATALOGS: Record<Language, () => Promise<Catalog>> = {
  en: () => import("./catalog.en").then((m) => m.default),
  es: () => import("./catalog.es").then((m) => m.default),
};

/** Merges `extra` into `into`; a key defined twice as text is a mistake. */
export function mergeCatalog(into: Catalog, extra: Catalog, path = ""): Catalog {
  for (const [key, value] of Object.entries(extra)) {
    const here = path ? `${path}.${key}` : key;
    const was = into[key];
    if (typeof value === "string" || typeof was === "string") {
      if (was !== undefined) throw new Error(`translation key defined twice: ${here}`);
      into[key] = value;
    } else {
      into[key] = mergeCatalog(was ?? {}, value, here);
    }
  }
  return into;
}

/** Every message by its dotted key ("canvas.title" → "Canvas"). */
export function flatten(catalog: Catalog, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

/** A language's catalog: its base file, then its areas in path order. */
export function catalogOf(base: Catalog, areas: Record<string, Catalog>): Catalog {
  const out: Catalog = {};
  mergeCatalog(out, base);
  for (const [, catalog] of Object.entries(areas).sort(([a], [b]) => a.localeCompare(b))) {
    mergeCatalog(out, catalog);
  }
  return out;
}
