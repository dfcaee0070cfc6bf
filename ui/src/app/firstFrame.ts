// The first frame comes first (issue 16): what the window opens on paints
// before the parts of the shell that can wait (banners, approvals, toasts,
// the command palette) are fetched and rendered, so their code and their
// queries do not compete with it.

import { useEffect, useSyncExternalStore } from "react";

import { shellApi } from "../api";

let painted = false;
const listeners = new Set<() => void>();

function markPainted() {
  if (painted) return;
  painted = true;
  for (const listener of listeners) listener();
}

// Should the first view never paint (its code failed to load, it threw),
// the rest of the shell comes anyway: approvals must not stay hidden.
const FALLBACK_MS = 2_000;
let fallback: ReturnType<typeof setTimeout> | undefined;

function subscribe(listener: () => void) {
  fallback ??= setTimeout(markPainted, FALLBACK_MS);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True once the first view (or the first-run screen) is on screen. */
export function useAfterFirstFrame(): boolean {
  return useSyncExternalStore(subscribe, () => painted);
}

/** Tells the backend when `view` is on screen: two animation frames after
 * it rendered, at start and after each change of view (scripts/bench-app.sh
 * times start-up and each view's first paint with it). */
export function usePaintReport(view: string) {
  useEffect(() => {
    let second = 0;
    const first = requestAnimationFrame(() => {
      second = requestAnimationFrame(() => {
        markPainted();
        shellApi.reportPaint(view).catch(() => {});
      });
    });
    return () => {
      cancelAnimationFrame(first);
      cancelAnimationFrame(second);
    };
  }, [view]);
}
