// Where the window is (issue 16): the place is remembered for the next
// start, and a `colmena://` link handed to the running app (a second launch)
// moves the window there — asking first when a form has unsaved changes.

import { useEffect } from "react";

import { onOpenRoute, shellApi } from "../api";
import { guardLeave } from "../components/SaveBar";

export function useLinksAndPlace() {
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let cancelled = false;
    void onOpenRoute((route) => {
      if (route !== window.location.hash) guardLeave(() => (window.location.hash = route));
    })
      .then((stop) => {
        if (cancelled) stop();
        else unlisten = stop;
      })
      .catch((error: unknown) => console.warn("colmena:// links are off:", error));
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, []);

  useEffect(() => {
    const remember = () => {
      const route = window.location.hash;
      if (route) shellApi.rememberRoute(route).catch(() => {});
    };
    remember();
    window.addEventListener("hashchange", remember);
    return () => window.removeEventListener("hashchange", remember);
  }, []);
}
