// Colmena as a desktop app (issue 16), in the real window under Xvfb:
// closing the window (the close request a window manager sends) keeps the
// app running in the tray, and a role still wakes on urgent mail while it is
// hidden; a second launch on the same workspace brings the first window
// back, hands over its `colmena://canvas/<id>` link, which opens that
// canvas, and exits (one app afterwards); the window's size, position and
// last canvas survive a restart. A file named by a second launch lands on
// the canvas the window shows. Settings → Desktop in both languages.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import {
  APP,
  appPids as appPidsOf,
  byTestId,
  clickTestId,
  colmenaCli,
  completeFirstRun,
  killApp,
  launchApp,
  repo,
  shot,
  startDriver,
  startScriptedProvider,
} from "./harness.mjs";

const PROMPT = "You are Vigía, who keeps watch over the night shift.";

let driver;
let browser;
let provider;
let canvasId;

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const click = (id) => clickTestId(browser, id);

/** The pids of the app running on this spec's workspace. */
const appPids = () => appPidsOf(driver.dataDir);

/** The app's visible top-level windows (X ids). */
function visibleWindows() {
  try {
    return execFileSync("xdotool", ["search", "--onlyvisible", "--name", "^Colmena$"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
  } catch {
    return []; // xdotool exits 1 when nothing matches
  }
}

const wakes = () => JSON.parse(colmena("author", "history", "vigia", "--json"));

before(async () => {
  driver = await startDriver({ portOffset: 19 });
  provider = await startScriptedProvider(
    driver.dataDir,
    { rules: [{ when: { systemContains: PROMPT }, reply: { type: "text", text: "Turno revisado." }, repeat: true }] },
    "desktop-shell-script",
  );
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  colmena("agent", "add", "Vigía", "--system-prompt", PROMPT);
  colmena("author", "create", "Vigia", "--agent", "vigia", "--wake-every", "600");
  canvasId = JSON.parse(colmena("canvas", "create", "Plan de lanzamiento", "--json")).id;
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  // A second launch that failed to hand over would still be running.
  if (driver) await killApp(driver.dataDir);
  await provider?.stop();
});

test("Settings → Desktop says the app stays in the tray, in English and Spanish", async () => {
  await click("nav-settings");
  await click("settings-desktop");
  const keep = await browser.$(byTestId("desktop-keep-in-tray"));
  await keep.waitForDisplayed();
  assert.equal(await keep.getAttribute("aria-checked"), "true", "on by default, with a tray");
  assert.equal(await keep.isEnabled(), true);
  await shot(browser, "settings-desktop-en");
  await click("quick-lang-es");
  await browser.waitUntil(async () => (await browser.$(`${byTestId("section-desktop")} h2`).getText()) === "Escritorio", {
    timeout: 5_000,
  });
  await shot(browser, "settings-desktop-es");
  await click("quick-lang-en");
});

test("closing the window keeps Colmena running in the tray, and a role still wakes", async () => {
  const before = appPids();
  assert.equal(before.length, 1, `one app runs: ${before}`);
  const windows = visibleWindows();
  assert.ok(windows.length >= 1, "the window is shown");
  const closedAt = Date.now();
  for (const id of windows) execFileSync("python3", [join(repo, "tests/e2e/tools/close-window.py"), id]);
  await browser.waitUntil(async () => visibleWindows().length === 0, {
    timeout: 10_000,
    timeoutMsg: "the window did not close",
  });
  assert.deepEqual(appPids(), before, "the app still runs, hidden");
  const prefs = JSON.parse(readFileSync(join(driver.dataDir, "ui-prefs.json"), "utf8"));
  assert.equal(prefs.trayHintShown, true, "the first close says once that Colmena stays in the tray");

  // Hiding the window is looking away: Colmena notes when.
  const seenAt = () => Date.parse(JSON.parse(colmena("--json", "activity")).sinceSeen?.seenAt ?? "1970-01-01T00:00:00Z");
  await browser.waitUntil(async () => seenAt() >= closedAt, {
    timeout: 30_000,
    timeoutMsg: "hiding the window did not mark the timeline seen",
  });

  // Urgent mail from another program wakes the role at once.
  colmena("message", "send", "vigia", "¿Todo en orden esta noche?", "--priority", "urgent");
  await browser.waitUntil(async () => wakes().length > 0, {
    timeout: 30_000,
    timeoutMsg: "the role did not wake while the window was hidden",
  });
  const [wake] = wakes();
  assert.equal(wake.error ?? null, null, JSON.stringify(wake));
  assert.deepEqual(appPids(), before);
  // Hiding the window was looking away: the wake-up is what ran "while you
  // were away", which the tray's menu and Activity's banner say.
  await browser.waitUntil(async () => (JSON.parse(colmena("--json", "activity")).sinceSeen?.figures.runs ?? 0) >= 1, {
    timeout: 30_000,
    timeoutMsg: "the wake-up is not counted as what ran while the window was hidden",
  });
});

test("a second launch brings the window back and opens its colmena:// link", async () => {
  const first = appPids();
  const second = spawn(APP, [`colmena://canvas/${canvasId}`], {
    env: {
      ...process.env,
      COLMENA_DATA_DIR: driver.dataDir,
      COLMENA_SECRET_BACKEND: "file",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  second.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => second.on("exit", resolve));
  assert.equal(code, 0, `the second launch handed over and exited: ${stderr}`);
  assert.match(stderr, /already runs on this workspace/);
  await browser.waitUntil(async () => visibleWindows().length > 0, {
    timeout: 10_000,
    timeoutMsg: "the first window did not come back",
  });
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)) === `#/canvas/${canvasId}`, {
    timeout: 10_000,
    timeoutMsg: "the link did not open its canvas",
  });
  const name = await browser.$(byTestId("canvas-name"));
  await name.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await name.getValue(), "Plan de lanzamiento");
  assert.deepEqual(appPids(), first, "one app afterwards");
  await shot(browser, "desktop-link-opened-canvas");
});

test("a second launch naming a file puts it on the canvas the window shows", async () => {
  const first = appPids();
  const folder = mkdtempSync(join(tmpdir(), "colmena-handed-"));
  writeFileSync(join(folder, "notas.md"), "# Lanzamiento\nRevisar la lista de tareas.");
  writeFileSync(join(folder, "script.sh"), "echo nunca");
  // Relative paths, from the folder the second launch runs in.
  const second = spawn(APP, ["notas.md", "script.sh"], {
    cwd: folder,
    env: { ...process.env, COLMENA_DATA_DIR: driver.dataDir, COLMENA_SECRET_BACKEND: "file" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const code = await new Promise((resolve) => second.on("exit", resolve));
  assert.equal(code, 0, "the second launch handed over and exited");
  await browser.waitUntil(async () => (await browser.$$(byTestId("handed-file-note"))).length === 2, {
    timeout: 15_000,
    timeoutMsg: "the handed files were not reported on the canvas",
  });
  const notes = [];
  for (const note of await browser.$$(byTestId("handed-file-note"))) notes.push(await note.getText());
  assert.ok(notes.some((n) => /notas\.md is on this canvas now/.test(n)), notes.join(" | "));
  assert.ok(notes.some((n) => /Not added: script\.sh: only text/.test(n)), notes.join(" | "));
  const shown = JSON.parse(colmena("canvas", "show", canvasId, "--json"));
  const items = shown.items.filter((i) => i.title === "notas.md");
  assert.equal(items.length, 1, JSON.stringify(shown.items));
  assert.match(items[0].snippet, /Revisar la lista de tareas/);
  assert.ok(!shown.items.some((i) => i.title === "script.sh"), "a script is not a canvas item");
  assert.deepEqual(appPids(), first, "one app afterwards");
  await shot(browser, "desktop-file-handed-to-canvas");
});

test("the window's size, position and last canvas survive a restart", async () => {
  await browser.setWindowRect(60, 40, 1040, 720);
  const placed = await browser.getWindowRect();
  // Saved half a second after the window settles.
  await browser.waitUntil(
    async () => {
      try {
        const saved = JSON.parse(readFileSync(join(driver.dataDir, "window-state.json"), "utf8"));
        return saved.width === placed.width && saved.height === placed.height;
      } catch {
        return false;
      }
    },
    { timeout: 10_000, timeoutMsg: "the window's place was not saved" },
  );
  await browser.deleteSession();
  // The session's end stops the app; one still running is stopped. Either
  // way it is gone before the next launch, which would otherwise hand over
  // to it and exit.
  await killApp(driver.dataDir, "SIGTERM");
  browser = await launchApp({ keepPlacement: true });
  const name = await browser.$(byTestId("canvas-name"));
  await name.waitForDisplayed({ timeout: 15_000 });
  assert.equal(await browser.execute(() => window.location.hash), `#/canvas/${canvasId}`);
  assert.equal(await name.getValue(), "Plan de lanzamiento");
  const rect = await browser.getWindowRect();
  assert.equal(rect.width, placed.width);
  assert.equal(rect.height, placed.height);
  assert.equal(rect.x, placed.x);
  assert.equal(rect.y, placed.y);
  assert.ok(existsSync(join(driver.dataDir, "window-state.json")));
});
