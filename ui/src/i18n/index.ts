// English and Spanish from the first screen (SPEC D5). Both catalogs must
// hold the same keys; a test checks it. The boot loads the language the
// window speaks before its first frame (`loadLanguage`), so that frame is
// never in the other one.

import i18n from "i18next";
import { initReactI18next } from "react-i18next";

import type { Language } from "../api/prefs";
import { CATALOGS } from "./catalogs";

void i18n.use(initReactI18next).init({
  resources: {},
  lng: "en",
  fallbackLng: "en",
  // The catalogs arrive one by one (loadLanguage), never from a backend.
  partialBundledLanguages: true,
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** Speaks `language` from now on, fetching its catalog the first time. */
export async function loadLanguage(language: Language): Promise<void> {
  if (!i18n.hasResourceBundle(language, "translation")) {
    i18n.addResourceBundle(language, "translation", await CATALOGS[language]());
  }
  await i18n.changeLanguage(language);
}

export default i18n;
