// English and Spanish from the first screen (SPEC D5). Both catalogs must
// hold the same keys; a test checks it.

import i18n from "i18next";
import { initReactI18next } from "react-i18next";

import { en, es } from "./catalogs";

export const resources = { en: { translation: en }, es: { translation: es } } as const;

void i18n.use(initReactI18next).init({
  resources,
  lng: "en",
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  returnNull: false,
});

export default i18n;
