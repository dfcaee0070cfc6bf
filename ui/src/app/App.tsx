import { useEffect } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Moon, Sun } from "lucide-react";

import { onDataChanged } from "../api";
import { Logo } from "../components/Logo";
import { Spinner } from "../components/Spinner";
import { ViewBoundary } from "../components/ViewBoundary";
import { CatalogView } from "../features/catalog/CatalogView";
import { CanvasView } from "../features/canvas/CanvasView";
import { invalidateCanvasFor } from "../features/canvas/queries";
import { ChatView } from "../features/chat/ChatView";
import { ConsoleView } from "../features/console/ConsoleView";
import { CronView } from "../features/cron/CronView";
import { invalidateCronFor } from "../features/cron/queries";
import { InboxView } from "../features/inbox/InboxView";
import { authorsQuery, invalidateInboxFor } from "../features/inbox/queries";
import { NoticeToasts } from "../features/runs/NoticeToasts";
import { PendingApprovals } from "../features/runs/PendingApprovals";
import { invalidateRuntimeFor } from "../features/runs/queries";
import { ResumeBanner } from "../features/runs/ResumeBanner";
import { SwarmsView } from "../features/swarms/SwarmsView";
import { invalidateCatalogFor, setupQuery } from "../features/catalog/queries";
import { MemoryView } from "../features/memory/MemoryView";
import { invalidateFor } from "../features/providers/queries";
import { NeedsModelBanner } from "../features/providers/NeedsModelBanner";
import { FirstRunScreen } from "../features/setup/FirstRunScreen";
import { SettingsView } from "../features/settings/SettingsView";
import { CommandPalette, PaletteButton } from "./CommandPalette";
import { usePreferences } from "./preferences";
import { useRoute } from "./route";
import { useLinksAndPlace, usePaintReport } from "./place";
import { shortcutTitle } from "./shortcutsHooks";
import { DEFAULT_VIEW, VIEWS, type ViewId } from "./views";

const VIEW_COMPONENTS: Record<ViewId, () => React.ReactElement> = {
  canvas: CanvasView,
  catalog: CatalogView,
  swarms: SwarmsView,
  chat: ChatView,
  inbox: InboxView,
  cron: CronView,
  memory: MemoryView,
  console: ConsoleView,
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
    void onDataChanged((change) => {
      invalidateFor(client, change);
      invalidateCatalogFor(client, change);
      invalidateRuntimeFor(client, change);
      invalidateInboxFor(client, change);
      invalidateCanvasFor(client, change);
      invalidateCronFor(client, change);
    })
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
  const setup = useQuery(setupQuery);
  const authors = useQuery({ ...authorsQuery, enabled: Boolean(setup.data?.completed) });
  const myUnread = authors.data?.find((a) => a.isOwner)?.unread ?? 0;
  useLinksAndPlace();
  usePaintReport(setup.isPending ? null : setup.data?.completed === false ? "firstrun" : view);

  if (setup.isPending) {
    return (
      <div className="boot">
        <Spinner size={22} />
      </div>
    );
  }
  if (setup.data && !setup.data.completed) return <FirstRunScreen status={setup.data} />;

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
        <PaletteButton />
        <nav className="nav" aria-label={t("nav.label")}>
          {VIEWS.map(({ id, labelKey, icon: Icon }, index) => (
            <button
              key={id}
              title={shortcutTitle(t(labelKey), `view-${index + 1}`)}
              className={id === view ? "nav-link active" : "nav-link"}
              aria-current={id === view ? "page" : undefined}
              data-testid={`nav-${id}`}
              onClick={() => navigate(id)}
            >
              <Icon size={18} aria-hidden="true" />
              {t(labelKey)}
              {id === "inbox" && myUnread > 0 && (
                <span className="nav-count" data-testid="nav-unread">
                  {myUnread}
                </span>
              )}
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
        <ResumeBanner />
        <NeedsModelBanner />
        <ViewBoundary resetKey={view}>
          <View />
        </ViewBoundary>
      </main>
      <PendingApprovals />
      <NoticeToasts />
      <CommandPalette />
    </div>
  );
}
