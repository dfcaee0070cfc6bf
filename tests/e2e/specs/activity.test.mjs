// Activity, the home view (issue 37): one timeline in the real window of
// everything that ran — a canvas generation, a chat, a swarm run, a job's
// fire, a role's wake-up — with the approval waiting on top; by name, with
// figures; "Needs you" shows only what waits; a row leads to what it ran.
// Everything is made by this spec, through the command line, against the
// scripted provider; the app's own scheduler fires the job.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";

import { CLI, byTestId, clickTestId, colmenaCli, completeFirstRun, languageShown, launchApp, shot, startDriver, startScriptedProvider } from "./harness.mjs";

const WORKER = "You are the news worker.";
const ENGINEER = "You run commands on this computer.";

function script() {
  return {
    rules: [
      {
        when: { systemContains: ENGINEER, toolResults: 0 },
        reply: {
          type: "toolCalls",
          text: "I will run it.",
          calls: [{ name: "cli_exec", arguments: JSON.stringify({ command: "sh", args: ["-c", "echo hola"] }) }],
        },
        repeat: true,
      },
      { when: { systemContains: ENGINEER, toolResults: 1 }, reply: { type: "text", text: "The person said no." }, repeat: true },
      { when: { systemContains: WORKER }, reply: { type: "text", text: "Done: the news in three lines." }, repeat: true },
      { when: {}, reply: { type: "text", text: "Bees make honey." }, repeat: true },
    ],
  };
}

let driver;
let browser;
let provider;
let waiting;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

before(async () => {
  driver = await startDriver({ portOffset: 24 });
  provider = await startScriptedProvider(driver.dataDir, script(), "activity-script");
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  colmena("agent", "add", "Worker", "--system-prompt", WORKER);
  colmena("tool", "toggle", "cli_exec", "--on");
  colmena("agent", "add", "Ingeniera", "--system-prompt", ENGINEER, "--tools", "cli_exec");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  waiting?.kill();
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

/** The kinds the timeline shows now. */
async function kinds() {
  return browser.execute(() => [...document.querySelectorAll('[data-testid="activity-entry"]')].map((e) => e.dataset.kind));
}

async function setLook(lang, theme) {
  await click(`quick-lang-${lang}`);
  await languageShown(browser, lang);
  const current = await browser.execute(() => document.documentElement.dataset.theme);
  if (current !== theme) await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === theme);
}

test("one timeline holds a generation, a chat, a swarm run, a job's fire, a wake-up and the approval waiting", async () => {
  // A canvas generation.
  const canvas = JSON.parse(colmena("--json", "canvas", "create", "Morning brief"));
  const variant = JSON.parse(colmena("--json", "canvas", "add-variant", canvas.id, "--preset", "x-thread", "--prompt", "About bees"));
  colmena("canvas", "generate", variant.id);
  // A chat.
  colmena("chat", "worker", "-m", "Hello there");
  // A swarm run.
  colmena("swarm", "create", "Newsroom", "--strategy", "sequential", "--members", "worker");
  colmena("swarm", "run", "newsroom", "Cover the fair");
  // A role's wake-up.
  colmena("author", "create", "Ambrosio", "--agent", "worker", "--wake-every", "600");
  colmena("message", "send", "ambrosio", "What is new?");
  colmena("author", "wake", "ambrosio");
  // A job, fired by the app's scheduler.
  colmena("cron", "create", "Digest", "--every", "1h", "--agent", "worker", "--prompt", "Write the digest.");
  colmena("cron", "trigger", "digest");
  // An approval waiting: a run from the command line asks to run a program.
  waiting = spawn(CLI, ["--data-dir", driver.dataDir, "agent", "run", "ingeniera", "Run the command"], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    stdio: ["ignore", "ignore", "inherit"],
  });

  await click("nav-activity");
  await browser.waitUntil(
    async () => {
      const shown = await kinds();
      return ["generation", "chat", "swarm", "job", "wake_up", "approval"].every((k) => shown.includes(k));
    },
    { timeout: 60_000, timeoutMsg: "the timeline never held every kind" },
  );
  await shot(browser, "activity-en-light");
  const feed = await el("activity-feed");
  // What the rows hold, clamped lines included.
  const text = await browser.execute(() => document.querySelector('[data-testid="activity-feed"]').textContent);
  assert.match(text, /Round 1 of X thread in «Morning brief»/);
  assert.match(text, /Chat with Worker/);
  assert.match(text, /The Newsroom swarm ran/);
  assert.match(text, /Scheduled job «Digest»/);
  assert.match(text, /Ambrosio woke up to read its mail/);
  assert.match(text, /Ingeniera asks to use Run a command/);
  assert.match(text, /Done: the news in three lines\./, "a result's first lines are shown");
  assert.match(text, /You, from the command line/, "who started it");
  // Each run once: the job's run and the wake-up's run are not also agent
  // runs; the one agent run is the engineer's, waiting.
  const shown = await kinds();
  assert.equal(shown.filter((k) => k === "agent").length, 1, `${shown}`);
  await browser.waitUntil(async () => (await el("kpi-waiting-value").then((e) => e.getText())) === "1", { timeout: 10_000 });
  assert.ok(Number(await el("kpi-runs-today-value").then((e) => e.getText())) >= 5);

  await setLook("es", "dark");
  await browser.waitUntil(async () => /Tarea programada «Digest»/.test(await feed.getText()), { timeout: 10_000 });
  await shot(browser, "activity-es-dark");
  await setLook("es", "light");
  await shot(browser, "activity-es-light");
  await setLook("en", "dark");
  await shot(browser, "activity-en-dark");
  await setLook("en", "light");
});

test("Needs you shows only what waits, and the decision empties it", async () => {
  await click("chip-needs-you");
  await browser.waitUntil(async () => {
    const shown = await kinds();
    return shown.length === 1 && shown[0] === "approval";
  });
  await shot(browser, "activity-needs-you");
  const stack = await el("pending-approvals");
  await stack.waitForDisplayed({ timeout: 20_000 });
  await stack.$(byTestId("approval-deny")).click();
  await el("kpi-waiting-value").then((e) => e.waitUntil(async () => (await e.getText()) === "0", { timeout: 20_000 }));
  await browser.waitUntil(async () => (await kinds()).length === 0, { timeout: 20_000 });
  await click("chip-all");
});

test("a row leads to what it ran: the job's row opens the job", async () => {
  await browser.$(`${byTestId("activity-entry")}[data-kind="job"] ${byTestId("activity-open")}`).click();
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)) === "#/cron/digest", {
    timeout: 10_000,
    timeoutMsg: "the job's row did not open the job",
  });
  await click("nav-activity");
  await browser.$(`${byTestId("activity-entry")}[data-kind="generation"] ${byTestId("activity-open")}`).click();
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)).startsWith("#/canvas/"), { timeout: 10_000 });
});
