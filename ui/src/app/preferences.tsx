// Theme and language: applied to the document at once, persisted through
// the prefs store, and offered to every view through context.

import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useState } from "react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

import type { Language, Prefs, PrefsStore, ThemeChoice } from "../api/prefs";
import { loadLanguage } from "../i18n";

interface PreferencesValue extends Prefs {
  resolvedTheme: "light" | "dark";
  setTheme(theme: ThemeChoice): void;
  setLanguage(language: Language): void;
}

const PreferencesContext = createContext<PreferencesValue | null>(null);

const darkQuery = () => window.matchMedia?.("(prefers-color-scheme: dark)");

export function resolveTheme(choice: ThemeChoice, systemIsDark: boolean): "light" | "dark" {
  if (choice === "system") return systemIsDark ? "dark" : "light";
  return choice;
}

export function PreferencesProvider({ store, children }: { store: PrefsStore; children: ReactNode }) {
  const [prefs, setPrefs] = useState<Prefs>(() => store.read());
  const [systemIsDark, setSystemIsDark] = useState(() => darkQuery()?.matches ?? false);

  useEffect(() => {
    const query = darkQuery();
    if (!query) return;
    const onChange = (event: MediaQueryListEvent) => setSystemIsDark(event.matches);
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, []);

  const resolvedTheme = resolveTheme(prefs.theme, systemIsDark);

  // Before the first paint, so a dark window never flashes light. The
  // color-scheme goes with it: scrollbars, form controls the CSS does not
  // draw itself and the native pickers follow the theme, not the system.
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = resolvedTheme;
    document.documentElement.style.colorScheme = resolvedTheme;
  }, [resolvedTheme]);

  useEffect(() => {
    loadLanguage(prefs.language).catch((error: unknown) => console.error("could not change the language", error));
  }, [prefs.language]);

  // The document says the language its text is in — set in the commit that
  // re-renders the views in it (every `useTranslation` re-renders on the
  // same change), not when the person picks it: the catalog loads first.
  // Screen readers, and anything that waits for the switch, read this.
  const { i18n } = useTranslation();
  const shownLanguage = i18n.resolvedLanguage ?? i18n.language;
  useLayoutEffect(() => {
    document.documentElement.lang = shownLanguage;
  }, [shownLanguage]);

  const update = useCallback(
    (next: Prefs) => {
      setPrefs(next);
      store.write(next).catch((error: unknown) => console.error("could not save preferences", error));
    },
    [store],
  );

  const value = useMemo<PreferencesValue>(
    () => ({
      ...prefs,
      resolvedTheme,
      setTheme: (theme) => update({ ...prefs, theme }),
      setLanguage: (language) => update({ ...prefs, language }),
    }),
    [prefs, resolvedTheme, update],
  );

  return <PreferencesContext.Provider value={value}>{children}</PreferencesContext.Provider>;
}

export function usePreferences(): PreferencesValue {
  const value = useContext(PreferencesContext);
  if (!value) throw new Error("usePreferences outside PreferencesProvider");
  return value;
}

/** A store that keeps preferences in memory only (tests, and the fallback
 * when the prefs file cannot be opened). */
export function memoryPrefs(initial: Prefs): PrefsStore {
  let current = initial;
  return {
    read: () => current,
    write: async (prefs) => {
      current = prefs;
    },
  };
}
