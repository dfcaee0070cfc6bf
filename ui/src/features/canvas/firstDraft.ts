// The first minute (issue 37, item 2): the sample canvas the first run
// opens starts generating as it opens, and once its drafts are written it
// says, once, what to do next. The first run names the canvas here; the
// board takes the name once (a reload does not generate again).

const GENERATE = "colmena.canvas.generateOnOpen";
export const NEXT_STEP_SEEN = "colmena.canvas.nextStepSeen";

/** The canvas the first run just made: it generates when it opens. */
export function generateOnOpen(canvasId: string): void {
  try {
    window.sessionStorage.setItem(GENERATE, canvasId);
  } catch {
    // Without storage the person presses Generate all themselves.
  }
}

/** Whether the canvas was named by `generateOnOpen` (and not taken yet). */
export function willGenerateOnOpen(canvasId: string): boolean {
  try {
    return window.sessionStorage.getItem(GENERATE) === canvasId;
  } catch {
    return false;
  }
}

/** True once for the canvas named by `generateOnOpen`. */
export function takeGenerateOnOpen(canvasId: string): boolean {
  try {
    if (window.sessionStorage.getItem(GENERATE) !== canvasId) return false;
    window.sessionStorage.removeItem(GENERATE);
    return true;
  } catch {
    return false;
  }
}
