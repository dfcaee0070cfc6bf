// The translation catalogs: `locales/<lang>.json` plus every
// `locales/<lang>/<area>.json`, merged key by key. One file per area keeps
// each feature's strings next to each other and out of one huge file.

export type Catalog = { [key: string]: string | Catalog };

const base = import.meta.glob<Catalog>("./locales/*.json", { eager: true, import: "default" });
const areas = import.meta.glob<Catalog>("./locales/*/*.json", { eager: true, import: "default" });

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

function catalogFor(lang: "en" | "es"): Catalog {
  const out: Catalog = {};
  mergeCatalog(out, base[`./locales/${lang}.json`] ?? {});
  for (const [path, catalog] of Object.entries(areas).sort(([a], [b]) => a.localeCompare(b))) {
    if (path.startsWith(`./locales/${lang}/`)) mergeCatalog(out, catalog);
  }
  return out;
}

export const en = catalogFor("en");
export const es = catalogFor("es");
