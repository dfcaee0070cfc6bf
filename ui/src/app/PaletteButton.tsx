// The sidebar's button that opens the command palette (CommandPalette.tsx).
// A module of its own: the shell draws the button in its first frame, and
// the palette's code comes after that frame (firstFrame.ts).

import { useTranslation } from "react-i18next";
import { Search } from "lucide-react";

import { shortcutKeys } from "./shortcutsHooks";

/** The event the palette listens for. */
export const OPEN_EVENT = "colmena:open-palette";

/** Opens the palette from anywhere (a button, a hint). */
export function openPalette(): void {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

/** The sidebar's way in for those who do not know the keys yet. */
export function PaletteButton() {
  const { t } = useTranslation();
  return (
    <button type="button" className="cmdk-opener" onClick={openPalette} title={t("forms.palette.title")} data-testid="open-palette">
      <Search size={14} aria-hidden="true" />
      <span>{t("forms.palette.open")}</span>
      <kbd className="kbd">{shortcutKeys("palette")}</kbd>
    </button>
  );
}
