// UI preferences (theme, language), kept by the backend in one file next to
// the workspace, `<data dir>/ui-prefs.json`, through two commands that touch
// only that file (the window has no store plugin: it could name any file).

import { desktopApi } from "./index";

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

export async function openPrefs(): Promise<PrefsStore> {
  const stored = await desktopApi.readUiPrefs();
  let current: Prefs = {
    theme: parseTheme(stored.theme),
    language: parseLanguage(stored.language, defaultLanguage(navigator.language)),
  };
  return {
    read: () => current,
    async write(prefs) {
      current = prefs;
      await desktopApi.writeUiPrefs({ theme: prefs.theme, language: prefs.language });
    },
  };
}
