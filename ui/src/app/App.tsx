import { lazy, Suspense, useEffect, type ReactNode } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Moon, Sun } from "lucide-react";

import { onDataChanged } from "../api";
import { Logo } from "../components/Logo";
import { Spinner } from "../components/Spinner";
import { ViewBoundary } from "../components/ViewBoundary";
import { useHandedFilesOpenTheCanvas } from "../features/canvas/handedFiles";
import { invalidateActivityFor } from "../features/activity/queries";
import { invalidateCanvasFor } from "../features/canvas/queries";
import { invalidateCronFor } from "../features/cron/queries";
import { authorsQuery, invalidateInboxFor } from "../features/inbox/queries";
import { invalidateRuntimeFor } from "../features/runs/queries";
import { invalidateCatalogFor, setupQuery } from "../features/catalog/queries";
import { invalidateFor } from "../features/providers/queries";
import { invalidateTeamFor } from "../features/team/queries";
import { FirstRunScreen } from "../features/setup/FirstRunScreen";
import { PaletteButton } from "./PaletteButton";
import { usePreferences } from "./preferences";
import { useRoute } from "./route";
import { useAfterFirstFrame, usePaintReport } from "./firstFrame";
import { useLinksAndPlace } from "./place";
import { shortcutTitle } from "./shortcutsHooks";
import { preloadAllViews, viewElement } from "./viewModules";
import { DEFAULT_VIEW, VIEWS } from "./views";

// Parts of the shell that wait for the first frame (firstFrame.ts).
const ResumeBanner = lazy(() => import("../features/runs/ResumeBanner").then((m) => ({ default: m.ResumeBanner })));
const NeedsModelBanner = lazy(() =>
  import("../features/providers/NeedsModelBanner").then((m) => ({ default: m.NeedsModelBanner })),
);
const PendingApprovals = lazy(() =>
  import("../features/runs/PendingApprovals").then((m) => ({ default: m.PendingApprovals })),
);
const NoticeToasts = lazy(() => import("../features/runs/NoticeToasts").then((m) => ({ default: m.NoticeToasts })));
const CommandPalette = lazy(() => import("./CommandPalette").then((m) => ({ default: m.CommandPalette })));

export function App() {
  const { t } = useTranslation();
  const prefs = usePreferences();
  const client = useQueryClient();
  const [route, navigate] = useRoute();
  const view = VIEWS.find((v) => v.id === route.view)?.id ?? DEFAULT_VIEW;

  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let cancelled = false;
    void onDataChanged((change) => {
      invalidateFor(client, change);
      invalidateCatalogFor(client, change);
      invalidateRuntimeFor(client, change);
      invalidateInboxFor(client, change);
      invalidateCanvasFor(client, change);
      invalidateActivityFor(client, change);
      invalidateCronFor(client, change);
      invalidateTeamFor(client, change);
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
  useHandedFilesOpenTheCanvas(view, navigate);
  const afterFirstFrame = useAfterFirstFrame();
  useEffect(() => {
    if (afterFirstFrame) preloadAllViews();
  }, [afterFirstFrame]);

  if (setup.isPending) {
    return (
      <div className="boot">
        <Spinner size={22} />
      </div>
    );
  }
  if (setup.data && !setup.data.completed) {
    return (
      <Painted view="firstrun">
        <FirstRunScreen status={setup.data} />
      </Painted>
    );
  }

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
        {afterFirstFrame && (
          <Suspense fallback={null}>
            <ResumeBanner />
            <NeedsModelBanner />
          </Suspense>
        )}
        <ViewBoundary resetKey={view}>
          {/* The view's chunk is fetched the first time it is shown (viewModules). */}
          <Suspense fallback={<div className="view-loading" />}>
            <Painted view={view}>
              {viewElement(view)}
            </Painted>
          </Suspense>
        </ViewBoundary>
      </main>
      {afterFirstFrame && (
        <Suspense fallback={null}>
          <PendingApprovals />
          <NoticeToasts />
          <CommandPalette />
        </Suspense>
      )}
    </div>
  );
}

/** Reports the first frame with `view` in it: inside the view's Suspense, so
 * it runs once the view's own code has arrived and rendered. */
function Painted({ view, children }: { view: string; children: ReactNode }) {
  usePaintReport(view);
  return children;
}
