// The desktop shell (issue 16): keep running in the tray, start at login,
// the place in the window to come back to, and `colmena://` links handed to
// the running app. One wrapper per command.

import { commands, events, type DesktopSettings, type UpdateOffer } from "../bindings";
import { toApiError } from "./errors";

export type { DesktopSettings, UpdateOffer };

async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw toApiError(error);
  }
}

export const shellApi = {
  settings: () => call(commands.readDesktopSettings()),
  setKeepInTray: (on: boolean) => call(commands.setKeepInTray(on)),
  setStartAtLogin: (on: boolean) => call(commands.setStartAtLogin(on)),
  /** Remembers where the person is (`#/canvas/<id>`), to open there next time. */
  rememberRoute: (route: string) => call(commands.rememberRoute(route)),
  /** Where the window opens: a launch link, else the remembered place. */
  initialRoute: () => call(commands.initialRoute()),
  /** Says a view has painted (read by scripts/bench-app.sh; a no-op otherwise). */
  reportPaint: (view: string) => call(commands.reportPaint(view)),
  /** Asks the release's signed manifest for a newer version (reaches the network: only when the person asks). */
  checkForUpdate: () => call(commands.checkForUpdate()),
  /** Backs the store up, installs the update the last check found and restarts. */
  installUpdate: () => call(commands.installUpdate()),
  /** The files a launch handed to the app, waiting for a canvas. */
  handedFiles: () => call(commands.handedFiles()),
  /** Puts one of them on `canvas` (once; only a handed-over path). */
  addHandedFile: (canvas: string, path: string) => call(commands.addHandedFile(canvas, path)),
};

/** Calls `onRoute` with the place a `colmena://` link handed to the running app asks for. */
export async function onOpenRoute(onRoute: (route: string) => void): Promise<() => void> {
  return events.openRoute.listen((event) => onRoute(event.payload.route));
}

/** Calls `onFiles` when a second launch hands files to the running app. */
export async function onFilesHanded(onFiles: () => void): Promise<() => void> {
  return events.filesHanded.listen(() => onFiles());
}
