// Each view is its own chunk (issue 16: the whole bundle was parsed before
// the first frame; now only the shell and the view the window opens on
// are). `preloadView` starts the fetch of the view a launch opens on while
// the boot still waits on its preferences; `preloadAllViews` fetches the
// others once the first frame is on screen.

import { lazy, type ComponentType, type LazyExoticComponent } from "react";

import { parseRoute } from "./route";
import { DEFAULT_VIEW, VIEWS, type ViewId } from "./views";

type ViewModule = Promise<{ default: ComponentType }>;

const LOADERS: Record<ViewId, () => ViewModule> = {
  canvas: () => import("../features/canvas/CanvasView").then((m) => ({ default: m.CanvasView })),
  catalog: () => import("../features/catalog/CatalogView").then((m) => ({ default: m.CatalogView })),
  swarms: () => import("../features/swarms/SwarmsView").then((m) => ({ default: m.SwarmsView })),
  chat: () => import("../features/chat/ChatView").then((m) => ({ default: m.ChatView })),
  inbox: () => import("../features/inbox/InboxView").then((m) => ({ default: m.InboxView })),
  cron: () => import("../features/cron/CronView").then((m) => ({ default: m.CronView })),
  memory: () => import("../features/memory/MemoryView").then((m) => ({ default: m.MemoryView })),
  console: () => import("../features/console/ConsoleView").then((m) => ({ default: m.ConsoleView })),
  settings: () => import("../features/settings/SettingsView").then((m) => ({ default: m.SettingsView })),
};

// One fetch per view: the preload and the lazy component share it.
const started = new Map<ViewId, ViewModule>();

function load(view: ViewId): ViewModule {
  let module = started.get(view);
  if (!module) {
    module = LOADERS[view]();
    started.set(view, module);
  }
  return module;
}

/** Starts fetching the view a hash (`#/canvas/…`) opens on; none → the default view. */
export function preloadView(hash: string) {
  const wanted = parseRoute(hash).view;
  const view = VIEWS.find((v) => v.id === wanted)?.id ?? DEFAULT_VIEW;
  // A failure shows when the view renders (its error boundary).
  load(view).catch(() => {});
}

/** Fetches every view's code in the background once the first frame is on
 * screen: a chunk fetched on the first visit cost ~300 ms there
 * (BENCHMARKS.md). */
export function preloadAllViews() {
  for (const view of Object.keys(LOADERS) as ViewId[]) load(view).catch(() => {});
}

export const VIEW_COMPONENTS = Object.fromEntries(
  (Object.keys(LOADERS) as ViewId[]).map((view) => [view, lazy(() => load(view))]),
) as Record<ViewId, LazyExoticComponent<ComponentType>>;
