import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Moon, Sun } from "lucide-react";

import { onDataChanged } from "../api";
import { Logo } from "../components/Logo";
import { SettingsView } from "../features/settings/SettingsView";
import { invalidateFor } from "../features/providers/queries";
import { usePreferences } from "./preferences";
import { useRoute } from "./route";
import { DEFAULT_VIEW, VIEWS, type ViewId } from "./views";

const VIEW_COMPONENTS: Record<ViewId, () => React.ReactElement> = {
  settings: SettingsView,
};

export function App() {
  const { t } = useTranslation();
  const prefs = usePreferences();
  const client = useQueryClient();
  const [route, navigate] = useRoute();
  const view = VIEWS.find((v) => v.id === route.view)?.id ?? DEFAULT_VIEW;
  const View = VIEW_COMPONENTS[view];

  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let cancelled = false;
    void onDataChanged((change) => invalidateFor(client, change))
      .then((stop) => {
        if (cancelled) stop();
        else unlisten = stop;
      })
      .catch((error: unknown) => console.warn("live updates are off:", error));
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, [client]);

  const nextTheme = prefs.resolvedTheme === "dark" ? "light" : "dark";

  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="brand">
          <Logo size={30} />
          <div>
            <strong>{t("app.name")}</strong>
            <span>{t("app.tagline")}</span>
          </div>
        </div>
        <nav className="nav" aria-label={t("nav.label")}>
          {VIEWS.map(({ id, labelKey, icon: Icon }) => (
            <button
              key={id}
              className={id === view ? "nav-link active" : "nav-link"}
              aria-current={id === view ? "page" : undefined}
              data-testid={`nav-${id}`}
              onClick={() => navigate(id)}
            >
              <Icon size={18} aria-hidden="true" />
              {t(labelKey)}
            </button>
          ))}
        </nav>
        <div className="sidebar-footer">
          <button
            className="chip-btn"
            onClick={() => prefs.setTheme(nextTheme)}
            aria-label={t(`appearance.themes.${nextTheme}`)}
            title={t(`appearance.themes.${nextTheme}`)}
            data-testid="quick-theme"
          >
            {prefs.resolvedTheme === "dark" ? <Sun size={15} /> : <Moon size={15} />}
          </button>
          <div className="lang-switch" role="radiogroup" aria-label={t("appearance.language")}>
            {(["en", "es"] as const).map((lang) => (
              <button
                key={lang}
                role="radio"
                aria-checked={prefs.language === lang}
                className={prefs.language === lang ? "active" : ""}
                title={t(`language.${lang}`)}
                onClick={() => prefs.setLanguage(lang)}
                data-testid={`quick-lang-${lang}`}
              >
                {lang.toUpperCase()}
              </button>
            ))}
          </div>
        </div>
      </aside>
      <main className="main">
        <View />
      </main>
    </div>
  );
}
