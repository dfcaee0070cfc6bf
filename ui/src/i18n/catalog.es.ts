// Spanish: `locales/es.json` and every `locales/es/<area>.json`, merged
// (catalogs.ts). A chunk of its own, loaded when the window speaks it.

import base from "./locales/es.json";
import { catalogOf, type Catalog } from "./catalogs";

const areas = import.meta.glob<Catalog>("./locales/es/*.json", { eager: true, import: "default" });

export default catalogOf(base, areas);
