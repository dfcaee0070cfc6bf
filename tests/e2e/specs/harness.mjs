// The harness: one tauri-driver per run, a fresh data dir and XDG home, and
// WebDriver sessions that each launch the real app binary.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { remote } from "webdriverio";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "../../..");

const target = process.env.CARGO_TARGET_DIR ?? join(repo, "target");
export const APP = process.env.COLMENA_APP ?? join(target, "debug/colmena-desktop");
export const CLI = process.env.COLMENA_CLI ?? join(target, "debug/colmena");
const SCRIPTED = process.env.COLMENA_SCRIPTED_LLM ?? join(target, "debug/colmena-scripted-llm");
export const SCREENSHOTS = process.env.COLMENA_E2E_SCREENSHOTS ?? join(repo, "tests/e2e/screenshots");
const TAURI_DRIVER =
  process.env.TAURI_DRIVER ?? join(process.env.HOME ?? "/root", ".cache/colmena/tools/bin/tauri-driver");
const NATIVE_DRIVER = process.env.WEBKIT_WEBDRIVER ?? "/usr/bin/WebKitWebDriver";
const BASE_PORT = Number(process.env.COLMENA_E2E_PORT ?? 4444);

// Every spec needs these binaries: say at once which one is missing rather
// than wait for a window or a port that never comes.
for (const [what, path] of [["the app (COLMENA_APP)", APP], ["the CLI (COLMENA_CLI)", CLI], ["the scripted provider (COLMENA_SCRIPTED_LLM)", SCRIPTED]]) {
  if (!existsSync(path)) throw new Error(`${what} is not built: ${path}`);
}
let port = BASE_PORT;

function waitForPort(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolvePort, reject) => {
    const attempt = () => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.end();
        resolvePort();
      });
      socket.on("error", () => {
        if (Date.now() > deadline) reject(new Error(`tauri-driver did not listen on ${port}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port) {
  return new Promise((resolveTaken) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolveTaken(true);
    });
    socket.on("error", () => resolveTaken(false));
  });
}

/** Starts tauri-driver with an environment that points the app at a fresh
 * workspace. Returns the workspace folder and a stop function. Each spec
 * file takes its own port (`portOffset`) so one file's driver shutting down
 * never races the next one's start. */
export async function startDriver({ portOffset = 0 } = {}) {
  port = BASE_PORT + 2 * portOffset;
  const dataDir = mkdtempSync(join(tmpdir(), "colmena-e2e-data-"));
  const xdgHome = mkdtempSync(join(tmpdir(), "colmena-e2e-xdg-"));
  mkdirSync(SCREENSHOTS, { recursive: true });
  // tauri-driver starts WebKitWebDriver on --native-port (4445 by default):
  // keep every port of every spec file apart.
  const args = ["--port", String(port), "--native-port", String(port + 100), "--native-driver", NATIVE_DRIVER];
  // A driver left by an earlier run that was cut off would answer in place
  // of this one, launching apps on its own (gone) workspace.
  for (const taken of [port, port + 100]) {
    if (await listening(taken)) {
      throw new Error(`port ${taken} is taken (a tauri-driver or WebKitWebDriver left by an earlier run?): stop it, or set COLMENA_E2E_PORT to another base`);
    }
  }
  // Under a D-Bus session bus of its own, in its process group: without
  // one, every app autolaunches a session bus (dbus-launch) that leaves the
  // group and outlives the run, holding an inotify instance; after about
  // 128 of them the machine's limit is reached and whatever starts next
  // fails (seen: the next run's `tauri build`, "Too many open files").
  const driver = spawn("dbus-run-session", ["--", TAURI_DRIVER, ...args], {
    env: {
      ...process.env,
      COLMENA_DATA_DIR: dataDir,
      COLMENA_SECRET_BACKEND: "file",
      XDG_DATA_HOME: xdgHome,
      XDG_CONFIG_HOME: xdgHome,
      XDG_CACHE_HOME: xdgHome,
      // Not WEBKIT_DISABLE_COMPOSITING_MODE: with it, WebKitWebDriver's
      // screenshot command never answers.
      NO_AT_BRIDGE: "1",
      // Xvfb has no GPU: WebKit's Skia painting threads then draw through
      // Mesa's software GL, which crashed the web process now and then
      // (a segfault in swrast_dri.so; the session ends "invalid session
      // id"). Skia's CPU raster is what a machine without a GPU should use.
      WEBKIT_SKIA_ENABLE_CPU_RENDERING: "1",
      LANG: "C.UTF-8",
    },
    stdio: ["ignore", "inherit", "inherit"],
    // Its own process group, holding WebKitWebDriver and every app it
    // launched: stopping kills them all. An app a failed session close left
    // behind would keep this file's stderr open and the test runner waiting
    // for ever (seen in CI).
    detached: true,
  });
  const killGroup = () => {
    try {
      process.kill(-driver.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  // Its own group outlives this process unless killed: also when this
  // file ends without its after hook (an uncaught error, a signal), else
  // its app would hold the local bus server's port for the next run.
  const onSignal = (signal) => {
    killGroup();
    process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGHUP" ? 1 : 15));
  };
  process.once("exit", killGroup);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.once(signal, onSignal);
  await waitForPort(port, 15_000);
  if (driver.exitCode !== null || driver.signalCode !== null) throw new Error(`tauri-driver exited at once (${driver.exitCode ?? driver.signalCode})`);
  return {
    dataDir,
    /** Kills tauri-driver, WebKitWebDriver and every app they launched, and
     * waits until they are gone: the next spec file's app must not start
     * while this one's still holds its ports (the local bus server's). */
    stop: async () => {
      killGroup();
      process.off("exit", killGroup);
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.off(signal, onSignal);
      await waitUntilGone(() => liveProcesses((p) => p.pgrp === driver.pid), "this spec's driver and apps");
    },
  };
}

/** The processes alive now (zombies hold nothing and are not counted), as
 * {pid, pgrp}, that `keep` keeps. */
function liveProcesses(keep) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const proc = { pid: Number(entry), pgrp: Number(pgrp) };
      if (state !== "Z" && state !== "X" && keep(proc)) found.push(proc);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function waitUntilGone(list, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (let left = list(); left.length > 0; left = list()) {
    if (Date.now() > deadline) throw new Error(`${what} still run: ${left.map((p) => p.pid).join(", ")}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}

const appBinary = realpathSync(APP);

/** The pids of the app processes running on the workspace `dataDir` (the
 * ones a spec launched, and nobody else's: other runs on this machine are
 * left alone). */
export function appPids(dataDir) {
  const wanted = `COLMENA_DATA_DIR=${dataDir}`;
  return liveProcesses(({ pid }) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`) === appBinary && readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(wanted);
    } catch {
      return false;
    }
  }).map((p) => p.pid);
}

/** Kills the app running on `dataDir` with `signal` and waits until it is
 * gone (its launch socket and its ports with it). */
export async function killApp(dataDir, signal = "SIGKILL") {
  const pids = appPids(dataDir);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // It ended meanwhile.
    }
  }
  await waitUntilGone(() => liveProcesses(({ pid }) => pids.includes(pid)), `the app on ${dataDir}`);
  return pids;
}

/** Runs the `colmena` CLI on the workspace in `dataDir`; returns its stdout. */
export function colmenaCli(dataDir, ...args) {
  return execFileSync(CLI, ["--data-dir", dataDir, ...args], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    encoding: "utf8",
  });
}

/** Starts `colmena-scripted-llm` with `script` ({rules: [...]}) on a free
 * port (or on `port`, as a local server the app looks for: LM Studio's
 * 1234); resolves to its base URL and a stop function. */
export function startScriptedProvider(dataDir, script, name = "script", port = 0) {
  const file = join(dataDir, "..", `${name}-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(script));
  const child = spawn(SCRIPTED, ["--port", String(port), "--script", file], { stdio: ["ignore", "pipe", "inherit"] });
  killOnExit(child);
  return new Promise((resolveProvider, reject) => {
    child.stdout.on("data", (chunk) => {
      const match = /listening on (http:\/\/[\d.:]+)/.exec(String(chunk));
      if (match) resolveProvider({ url: match[1], stop: () => stopChild(child) });
    });
    child.on("exit", (code) => reject(new Error(`the scripted provider exited (${code})`)));
    // A binary that is not there is an "error" event, never an "exit": without
    // this the spec would wait forever.
    child.on("error", (error) => reject(new Error(`the scripted provider did not start (${SCRIPTED}): ${error.message}`)));
  });
}

/** LM Studio's usual port: a server there is found by the first run. */
export const LM_STUDIO_PORT = 1234;

/** A script for the scripted provider acting as a local server with one
 * `model`: the connection test answers `hello` in slow pieces (so it is
 * seen streaming), the sample's two drafts answer `brief` and `thread`. */
export function localServerScript(model, hello, brief, thread) {
  return {
    models: [model],
    rules: [
      { when: { systemContains: "connection test" }, reply: { type: "text", text: hello }, repeat: true, textPiece: 4, delayMs: 150 },
      { when: { systemContains: "TL;DR brief" }, reply: { type: "text", text: brief }, repeat: true },
      { when: { systemContains: "thread for X" }, reply: { type: "text", text: thread }, repeat: true },
    ],
  };
}

/** Kills `child` when this file's process ends, however it ends short of
 * SIGKILL (its after hook may not run). */
export function killOnExit(child) {
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.once("exit", () => process.off("exit", kill));
}

/** Stops a process the spec started and waits for it to be gone. */
export function stopChild(child, signal = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    child.once("exit", () => resolveStop());
    child.kill(signal);
  });
}

/** Launches the app in a new WebDriver session; the window is set to
 * 1280×820 unless `keepPlacement` (the size and place it remembers). */
export async function launchApp({ keepPlacement = false } = {}) {
  const browser = await remote({
    hostname: "127.0.0.1",
    port,
    logLevel: "warn",
    // How long finding an element waits for it (and every wait without a
    // timeout of its own): generous, since a dialog's code may still be
    // loading on a busy 2-core machine — the 3 s default failed there
    // ("#role-name … wasn't found" after clicking "New role").
    waitforTimeout: 30_000,
    capabilities: {
      browserName: "wry",
      "wdio:enforceWebDriverClassic": true,
      "tauri:options": { application: APP },
    },
  });
  if (!keepPlacement) await browser.setWindowSize(1280, 820).catch(() => {});
  return browser;
}

export const byTestId = (id) => `[data-testid="${id}"]`;

const warmedUp = new WeakSet();

/**
 * Waits, in the page, until what the DOM holds now is on screen: the
 * finite CSS animations and transitions running now have finished, then two
 * animation frames have run (the first paints the DOM as the spec just saw
 * it, the second starts only once that one was presented). A hidden window
 * runs no animation frames: it answers at once, and a guard ends the wait
 * should frames stop coming while it waits — it can never hang a spec.
 */
export async function waitForRepaint(browser) {
  const how = await browser.executeAsync((done) => {
    let answered = false;
    const answer = (how) => {
      if (answered) return;
      answered = true;
      done(how);
    };
    if (document.visibilityState === "hidden") return answer("hidden");
    const guard = setTimeout(() => answer("no frames"), 15_000);
    const finite = (document.getAnimations?.() ?? []).filter(
      (a) => a.playState === "running" && Number.isFinite(a.effect?.getComputedTiming?.().endTime ?? Infinity),
    );
    Promise.all(finite.map((a) => a.finished.catch(() => {}))).then(() =>
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          clearTimeout(guard);
          answer("painted");
        }),
      ),
    );
  });
  if (how === "no frames") console.warn("the window ran no animation frames for 15 s: screenshot taken without waiting for a repaint");
  return how;
}

/** Saves a screenshot of the window as `name`.png, once the state the spec
 * has just asserted has been painted (`waitForRepaint`). */
export async function shot(browser, name) {
  const path = join(SCREENSHOTS, `${name}.png`);
  // WebKitWebDriver's first screenshot of a session can hold the window's
  // first paint (seen: the first-run screen long after it was left); take
  // one to throw away before the first that counts.
  if (!warmedUp.has(browser)) {
    warmedUp.add(browser);
    await waitForRepaint(browser);
    await browser.takeScreenshot();
  }
  const painted = (await waitForRepaint(browser)) === "painted";
  // WebKitWebDriver can still hand back a frame older than the page (seen:
  // "Resuming" after the test had read "Resumed"): take frames until two in
  // a row agree, at most five (a spinner never settles), and keep the last.
  // A window that paints no frames (hidden) is taken as it is.
  let frame = await browser.takeScreenshot();
  for (let tries = 1; painted && tries < 5; tries += 1) {
    await waitForRepaint(browser);
    const next = await browser.takeScreenshot();
    const settled = next === frame;
    frame = next;
    if (settled) break;
  }
  writeFileSync(path, Buffer.from(frame, "base64"));
  return path;
}

/** The first run: skip "connect a model", choose `keep` specialists (ids)
 * and install (or start with none when `keep` is empty), then skip the
 * sample canvas — the state every spec starts from: no provider, no canvas,
 * the chosen specialists. */
export async function completeFirstRun(browser, keep = null) {
  const screen = await browser.$(byTestId("first-run"));
  await screen.waitForDisplayed({ timeout: 15_000 });
  // The first step renders with the screen (its status is loaded before).
  const skipConnect = await browser.$(byTestId("connect-skip"));
  if (await skipConnect.isExisting()) {
    await skipConnect.click();
    await browser.$('[data-testid^="persona-"]').waitForDisplayed({ timeout: 15_000 });
  }
  if (keep === null) {
    await browser.$(byTestId("install-specialists")).click();
  } else if (keep.length === 0) {
    await browser.$(byTestId("start-empty")).click();
  } else {
    for (const card of await browser.$$('[data-testid^="persona-"]')) {
      const id = (await card.getAttribute("data-testid")).replace("persona-", "");
      const on = (await card.getAttribute("aria-checked")) === "true";
      if (on !== keep.includes(id)) await card.click();
    }
    await browser.$(byTestId("install-specialists")).click();
  }
  const shown = (id) => browser.$(byTestId(id)).isDisplayed().catch(() => false);
  await browser.waitUntil(async () => (await shown("sample-skip")) || !(await shown("first-run")), {
    timeout: 15_000,
    timeoutMsg: "the first run neither offered the sample canvas nor closed",
  });
  if (await shown("sample-skip")) await clickTestId(browser, "sample-skip");
  await waitGone(browser, byTestId("first-run"), 15_000);
  // A new workspace opens on the canvas, never on a form (issue 37); the
  // specs then start from the catalog, where they set things up.
  await browser.waitUntil(async () => (await browser.$(byTestId("nav-canvas")).getAttribute("aria-current")) === "page", {
    timeout: 15_000,
    timeoutMsg: "the first run did not land on the canvas",
  });
  await clickTestId(browser, "nav-catalog");
  await browser.waitUntil(async () => (await browser.$(byTestId("nav-catalog")).getAttribute("aria-current")) === "page", {
    timeout: 15_000,
    timeoutMsg: "the catalog did not open",
  });
}

/** Waits until the window shows `lang`: the app sets `<html lang>` in the
 * commit that re-renders the views in that language (its catalog loads
 * first), so text read after this is in it. Generous: a loaded machine. */
export async function languageShown(browser, lang) {
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.lang)) === lang, {
    timeout: 30_000,
    timeoutMsg: `the window never showed ${lang}`,
  });
}

/**
 * Waits until nothing matching `selector` is shown. An element that vanishes
 * between being found and being checked is gone, not an error.
 */
export async function waitGone(browser, selector, timeout = 10_000) {
  await browser.waitUntil(
    async () => {
      try {
        return !(await browser.$(selector).isDisplayed());
      } catch {
        return true;
      }
    },
    { timeout, timeoutMsg: `${selector} is still shown` },
  );
}

/**
 * Runs `act` again when the page re-rendered under it: WebKitWebDriver
 * answers "stale element" when a node is replaced between being found and
 * being used (seen in CI: a chat panel re-rendering as a new chat opened).
 * `act` finds its element anew on each attempt.
 */
export async function retryStale(act, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await act();
    } catch (error) {
      if (attempt >= attempts || !/stale element/i.test(String(error?.message ?? error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Clicks the element with test id `id` once it is clickable. */
export async function clickTestId(browser, id) {
  await retryStale(async () => {
    const target = await browser.$(byTestId(id));
    await target.waitForClickable({ timeout: 10_000 });
    await target.click();
  });
}

/** Replaces the text of the field matching `selector` as a person does. */
export async function fillField(browser, selector, text) {
  await retryStale(async () => {
    const input = await browser.$(selector);
    await input.waitForDisplayed();
    await input.click();
    await browser.keys(["Control", "a"]);
    await browser.keys("Backspace");
    await input.setValue(text);
  });
}

/** Picks an option of the select with test id `testId`; lists re-render
 * when data changes, so a stale element is retried. */
export async function chooseOption(browser, testId, value) {
  await browser.waitUntil(
    async () => {
      try {
        const select = await browser.$(byTestId(testId));
        await select.selectByAttribute("value", value);
        return (await select.getValue()) === value;
      } catch {
        return false;
      }
    },
    { timeout: 10_000, timeoutMsg: `could not choose ${value} in ${testId}` },
  );
}

/**
 * Starts a new chat with `agentId` through "New chat ▾" and waits for its
 * own, empty thread. Until the new conversation is in the list, the window
 * still shows the one open before (its composer, its chat-input), which is
 * then replaced: a field found in that moment lands on a node that is gone.
 */
export async function newChatWith(browser, agentId) {
  const before = await browser.execute(() => window.location.hash);
  await clickTestId(browser, "new-chat-menu");
  await clickTestId(browser, `new-chat-with-${agentId}`);
  await browser.waitUntil(
    () =>
      browser.execute((previous) => {
        const hash = window.location.hash;
        const thread = document.querySelector('[data-testid="chat-thread"]');
        return (
          hash.startsWith("#/chat/") &&
          hash !== previous &&
          thread !== null &&
          thread.querySelector(".messages .message") === null &&
          thread.querySelector(".chat-hint") !== null &&
          thread.querySelector('[data-testid="chat-input"]') !== null
        );
      }, before),
    { timeout: 15_000, timeoutMsg: `the new chat with ${agentId} is not shown empty` },
  );
}
