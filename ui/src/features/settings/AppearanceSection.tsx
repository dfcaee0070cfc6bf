import { useTranslation } from "react-i18next";
import { Monitor, Moon, Sun } from "lucide-react";

import type { Language, ThemeChoice } from "../../api/prefs";
import { usePreferences } from "../../app/preferences";
import { Segmented } from "../../components/Segmented";

export function AppearanceSection() {
  const { t } = useTranslation();
  const prefs = usePreferences();
  return (
    <section className="section" data-testid="section-appearance">
      <header className="section-head">
        <div>
          <h2>{t("appearance.title")}</h2>
          <p className="section-subtitle">{t("appearance.subtitle")}</p>
        </div>
      </header>
      <div className="card settings-card">
        <div className="setting-row">
          <div>
            <h3>{t("appearance.theme")}</h3>
          </div>
          <Segmented<ThemeChoice>
            label={t("appearance.theme")}
            value={prefs.theme}
            onChange={prefs.setTheme}
            options={[
              { value: "system", label: <><Monitor size={15} /> {t("appearance.themes.system")}</>, testId: "theme-system" },
              { value: "light", label: <><Sun size={15} /> {t("appearance.themes.light")}</>, testId: "theme-light" },
              { value: "dark", label: <><Moon size={15} /> {t("appearance.themes.dark")}</>, testId: "theme-dark" },
            ]}
          />
        </div>
        <div className="setting-row">
          <div>
            <h3>{t("appearance.language")}</h3>
            <p className="muted small">{t("appearance.languageHint")}</p>
          </div>
          <Segmented<Language>
            label={t("appearance.language")}
            value={prefs.language}
            onChange={prefs.setLanguage}
            options={[
              { value: "en", label: t("language.en"), testId: "lang-en" },
              { value: "es", label: t("language.es"), testId: "lang-es" },
            ]}
          />
        </div>
      </div>
    </section>
  );
}
