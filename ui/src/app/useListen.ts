// One backend event listened to for as long as a component is mounted: the
// subscription resolves later than the effect runs, so an unmount before it
// resolves must still stop it.

import { useEffect } from "react";

export function useListen(listen: () => Promise<() => void>, what: string) {
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let cancelled = false;
    void listen()
      .then((stop) => {
        if (cancelled) stop();
        else unlisten = stop;
      })
      .catch((error: unknown) => console.warn(`${what} are off:`, error));
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, [listen, what]);
}
