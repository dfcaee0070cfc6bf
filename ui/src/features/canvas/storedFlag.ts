// A yes/no the person chose for the canvas layout (the items column or the
// list of canvases hidden), kept in localStorage so the canvas opens the
// way it was left. Until they choose, it is null: the caller's default.

import { useCallback, useState } from "react";

export const ITEMS_HIDDEN = "colmena.canvas.itemsHidden";
export const LIST_HIDDEN = "colmena.canvas.listHidden";

function read(key: string): boolean | null {
  try {
    const stored = window.localStorage.getItem(key);
    return stored === null ? null : stored === "1";
  } catch {
    return null;
  }
}

/** The flag (null until chosen) and a setter that remembers it. */
export function useStoredFlag(key: string): [boolean | null, (next: boolean) => void] {
  const [value, setValue] = useState<boolean | null>(() => read(key));
  const set = useCallback(
    (next: boolean) => {
      setValue(next);
      try {
        window.localStorage.setItem(key, next ? "1" : "0");
      } catch {
        // Private mode or a full disk: the choice lasts this session.
      }
    },
    [key],
  );
  return [value, set];
}
