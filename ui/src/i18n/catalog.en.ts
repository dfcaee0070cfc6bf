// English: `locales/en.json` and every `locales/en/<area>.json`, merged
// (catalogs.ts). A chunk of its own, loaded when the window speaks it.

import base from "./locales/en.json";
import { catalogOf, type Catalog } from "./catalogs";

const areas = import.meta.glob<Catalog>("./locales/en/*.json", { eager: true, import: "default" });

export default catalogOf(base, areas);
