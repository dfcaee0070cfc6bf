// React's side of the shortcuts: the one registry the app shares, the hook a
// view uses to offer its "new" / "run" / "save" / "open" action, and the
// tooltip text with the shortcut in it.
//
// A view hooks in with one line, e.g. in SwarmsView:
//   useShortcutAction("new", () => navigate("swarms", "new"));
// Ctrl+N then runs it while Swarms is open, and the palette's "New swarm"
// opens Swarms and runs it. Parts of a view pass their own scope
// ("catalog/agents") so the palette can tell them apart.

import { useEffect, useRef } from "react";

import { useRoute } from "./route";
import { DEFAULT_VIEW, VIEWS } from "./views";
import { createActionRegistry, formatShortcut, isApple, withShortcut, type ActionFn, type ActionKind, type ShortcutId } from "./shortcuts";

/** The app's registry of view actions. */
export const actions = createActionRegistry();

const apple = () => typeof navigator !== "undefined" && isApple(navigator.platform);

/** "New agent (Ctrl+N)": a label with its shortcut, for a tooltip. */
export function shortcutTitle(label: string, id: ShortcutId): string {
  return withShortcut(label, id, apple());
}

/** "Ctrl+K" (or "⌘K" on a Mac). */
export function shortcutKeys(id: ShortcutId): string {
  return formatShortcut(id, apple());
}

/** The view on screen: the route's, or the default one (as App shows it). */
export function currentView(routeView: string): string {
  return VIEWS.find((v) => v.id === routeView)?.id ?? DEFAULT_VIEW;
}

/** Offers `fn` as the open view's `kind` action while the calling component
 * is mounted (and `enabled`). `scope` defaults to the current view. */
export function useShortcutAction(kind: ActionKind, fn: ActionFn, scope?: string, enabled = true): void {
  const [route] = useRoute();
  const where = scope ?? currentView(route.view);
  const latest = useRef(fn);
  useEffect(() => {
    latest.current = fn;
  });
  useEffect(() => {
    if (!enabled) return;
    return actions.register(kind, where, (arg) => latest.current(arg));
  }, [kind, where, enabled]);
}
