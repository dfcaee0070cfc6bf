// Each view is its own chunk (issue 16: the whole bundle was parsed before
// the first frame; now only the shell and the view the window opens on
// are). `loadView` fetches the view a launch opens on (the shell has
// started fetching it already: `first_frame_preload` in window.rs) and the
// boot renders once it is there; `preloadAllViews` fetches the others once
// the first frame is on screen.
//
// A view whose code is already here renders as a plain component: through
// `React.lazy` it would suspend once even so, and React holds back the
// reveal of a suspended boundary (up to 300 ms) — measured at 90–200 ms
// of the first frame (BENCHMARKS.md).

import { createElement, lazy, type ComponentType, type LazyExoticComponent, type ReactElement } from "react";

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
  activity: () => import("../features/activity/ActivityView").then((m) => ({ default: m.ActivityView })),
  settings: () => import("../features/settings/SettingsView").then((m) => ({ default: m.SettingsView })),
};

// One fetch per view: the preload and the lazy component share it.
const started = new Map<ViewId, ViewModule>();
// The views whose code has arrived.
const arrived = new Map<ViewId, ComponentType>();
// The component each view renders with, fixed at its first render (a view
// must not swap a lazy component for a plain one later: it would remount).
const chosen = new Map<ViewId, ComponentType>();

function load(view: ViewId): ViewModule {
  let module = started.get(view);
  if (!module) {
    module = LOADERS[view]().then((m) => {
      arrived.set(view, m.default);
      return m;
    });
    started.set(view, module);
  }
  return module;
}

/** Fetches the view a hash (`#/canvas/…`) opens on (none → the default
 * view); settles either way: a failure shows when the view renders (its
 * error boundary). */
export async function loadView(hash: string): Promise<void> {
  const wanted = parseRoute(hash).view;
  const view = VIEWS.find((v) => v.id === wanted)?.id ?? DEFAULT_VIEW;
  await load(view).catch(() => {});
}

/** Fetches every view's code in the background once the first frame is on
 * screen: a chunk fetched on the first visit cost ~300 ms there
 * (BENCHMARKS.md). */
export function preloadAllViews() {
  for (const view of Object.keys(LOADERS) as ViewId[]) load(view).catch(() => {});
}

const LAZY = Object.fromEntries(
  (Object.keys(LOADERS) as ViewId[]).map((view) => [view, lazy(() => load(view))]),
) as Record<ViewId, LazyExoticComponent<ComponentType>>;

/** `view` on screen: its component when its code is here, else a lazy one
 * (it suspends until the code arrives) — whichever it first rendered with. */
export function viewElement(view: ViewId): ReactElement {
  let component = chosen.get(view);
  if (!component) {
    component = arrived.get(view) ?? LAZY[view];
    chosen.set(view, component);
  }
  return createElement(component);
}
