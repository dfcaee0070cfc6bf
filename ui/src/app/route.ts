// The current place in the app, kept in the URL hash (`#/settings/providers`)
// so that reloads and the back button behave.

import { useCallback, useSyncExternalStore } from "react";

import { guardLeave } from "../components/SaveBar";

export interface Route {
  view: string;
  section: string | null;
}

export function parseRoute(hash: string): Route {
  const [view = "", section = ""] = hash.replace(/^#\/?/, "").split("/");
  return { view, section: section || null };
}

function subscribe(onChange: () => void) {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}

export function useRoute(): [Route, (view: string, section?: string | null) => void] {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  const navigate = useCallback((view: string, section?: string | null) => {
    const next = section ? `#/${view}/${section}` : `#/${view}`;
    // A form with unsaved changes is asked first (components/SaveBar).
    if (next !== window.location.hash) guardLeave(() => (window.location.hash = next));
  }, []);
  return [parseRoute(hash), navigate];
}
