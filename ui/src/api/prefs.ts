// UI preferences (theme, language), kept with Tauri's store plugin in a file
// next to the workspace: `<data dir>/ui-prefs.json`.

import { load, type Store } from "@tauri-apps/plugin-store";

export type ThemeChoice = "system" | "light" | "dark";
export type Language = "en" | "es";

export interface Prefs {
  theme: ThemeChoice;
  language: Language;
}

export interface PrefsStore {
  read(): Prefs;
  write(prefs: Prefs): Promise<void>;
}

export function defaultLanguage(browserLanguage: string | undefined): Language {
  return browserLanguage?.toLowerCase().startsWith("es") ? "es" : "en";
}

function parseTheme(value: unknown): ThemeChoice {
  return value === "light" || value === "dark" ? value : "system";
}

function parseLanguage(value: unknown, fallback: Language): Language {
  return value === "es" || value === "en" ? value : fallback;
}

export async function openPrefs(dataDir: string): Promise<PrefsStore> {
  const store: Store = await load(`${dataDir}/ui-prefs.json`, { defaults: {}, autoSave: false });
  const fallbackLanguage = defaultLanguage(navigator.language);
  let current: Prefs = {
    theme: parseTheme(await store.get("theme")),
    language: parseLanguage(await store.get("language"), fallbackLanguage),
  };
  return {
    read: () => current,
    async write(prefs) {
      current = prefs;
      await store.set("theme", prefs.theme);
      await store.set("language", prefs.language);
      await store.save();
    },
  };
}
