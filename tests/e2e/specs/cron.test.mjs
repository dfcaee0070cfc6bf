// Scheduled jobs in the real window (SPEC H25, issue 14): the Cron view's
// empty state; a job that runs an agent every minute, created in the form
// (an interval, the computer's time zone, the agent and its prompt), whose
// run — by the app's own scheduler, against the scripted provider — appears
// in its history with the run it produced; paused, it has no next run, and
// "Run now" still runs it once; a job made from the CLI in another time zone
// that fails leaves its error in the history and an urgent notice. English
// and Spanish are photographed.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, fillField, launchApp, shot, startDriver, startScriptedProvider, waitGone } from "./harness.mjs";

let driver;
let browser;
let provider;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);

/** The history entries shown, newest first: [{status, text}]. */
async function entries() {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="cron-history"] > li')].map((li) => ({
      status: li.getAttribute("data-status"),
      text: li.textContent,
    })),
  );
}

before(async () => {
  driver = await startDriver({ portOffset: 14 });
  provider = await startScriptedProvider(driver.dataDir, {
    rules: [
      { when: { model: "refused" }, reply: { type: "error", status: 401, message: "Incorrect API key provided" }, repeat: true },
      { when: { systemContains: "scheduled worker" }, reply: { type: "text", text: "Headlines summarised." }, repeat: true },
    ],
  });
  const dir = driver.dataDir;
  colmenaCli(dir, "provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmenaCli(dir, "model", "add", "scripted", "gpt-test");
  colmenaCli(dir, "model", "default", "scripted/gpt-test");
  colmenaCli(dir, "agent", "add", "Worker", "--system-prompt", "You are the scheduled worker.");
  colmenaCli(dir, "model", "add", "scripted", "refused");
  colmenaCli(dir, "agent", "add", "Broken", "--system-prompt", "You are refused.", "--model", "scripted/refused");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

test("the Cron view starts empty, with the app's scheduler running", async () => {
  await click("nav-cron");
  await el("new-cron-job-empty").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await browser.waitUntil(async () => (await (await el("cron-scheduler")).getText()) === "Scheduler running", {
    timeout: 10_000,
    timeoutMsg: "the app's scheduler is not reported running",
  });
  await shot(browser, "cron-empty-en");
});

test("a job that runs an agent every minute shows its run in the history", async () => {
  await click("new-cron-job-empty");
  await el("cron-dialog").then((e) => e.waitForDisplayed());
  await fillField(browser, "#cron-name", "Press pulse");
  await click("cron-mode-interval");
  await fillField(browser, "#cron-every", "1");
  await browser.$(byTestId("cron-unit")).selectByAttribute("value", "minutes");
  await browser.$(byTestId("cron-target")).selectByAttribute("value", "worker");
  await fillField(browser, "#cron-prompt", "Summarise the morning feeds in three lines.");
  // The next runs are previewed as the schedule is filled in.
  await browser.waitUntil(async () => (await (await el("cron-preview")).getText()).startsWith("Next runs:"), {
    timeout: 10_000,
    timeoutMsg: "no preview of the next runs",
  });
  await shot(browser, "cron-dialog-en");
  await click("cron-save");
  await waitGone(browser, byTestId("cron-dialog"));

  await el("cron-head").then((e) => e.waitForDisplayed());
  assert.match(await (await el("cron-schedule")).getText(), /^every minute/);
  assert.match(await (await el("cron-target-name")).getText(), /Worker/);
  assert.ok(await (await el("cron-next-run")).isDisplayed());
  assert.ok(await (await el("cron-history-empty")).isDisplayed());

  // The app's scheduler runs it a minute after it was created.
  await browser.waitUntil(async () => (await entries()).some((e) => e.status === "succeeded"), {
    timeout: 80_000,
    interval: 1_000,
    timeoutMsg: "no run appeared in the job's history",
  });
  const [first] = await entries();
  assert.equal(first.status, "succeeded");
  assert.match(first.text, /on schedule/);
  await shot(browser, "cron-history-en");

  // The run it produced opens from the entry.
  await click("cron-run-open");
  await el("run-detail").then((e) => e.waitForDisplayed());
  await browser.waitUntil(async () => (await (await el("run-detail")).getText()).includes("Headlines summarised."), {
    timeout: 10_000,
    timeoutMsg: "the run's answer is not shown",
  });
  await browser.keys("Escape");
  await waitGone(browser, byTestId("run-detail"));
});

test("a paused job has no next run, and Run now still runs it once", async () => {
  await click("cron-pause");
  await el("cron-resume").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  assert.equal(await (await el("cron-next-run")).isExisting(), false);
  assert.match(await (await el("cron-job-press_pulse")).getText(), /Paused/);
  const before = (await entries()).length;
  await click("cron-trigger");
  await el("cron-triggered").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await browser.waitUntil(async () => {
    const list = await entries();
    return list.length > before && list[0].status === "succeeded" && /run now/.test(list[0].text);
  }, { timeout: 30_000, timeoutMsg: "Run now did not add a run" });
  await shot(browser, "cron-paused-en");
});

test("a failing job is loud: its error in the history and a notice in the app", async () => {
  // Made from the CLI (another process) in another time zone: the view
  // learns of it, and shows its next run on New York's clock and on this
  // computer's.
  colmenaCli(driver.dataDir, "cron", "create", "Fragile", "--every", "1h", "--tz", "America/New_York", "--agent", "broken", "--prompt", "Try.");
  await el("cron-job-fragile").then((e) => e.waitForDisplayed({ timeout: 15_000 }));
  await click("cron-job-fragile");
  await browser.waitUntil(async () => (await (await el("cron-schedule")).getText()).includes("America/New_York"), { timeout: 10_000 });
  assert.ok(await (await el("cron-next-local")).isDisplayed(), "the local time is shown too");
  await click("cron-trigger");
  await browser.waitUntil(async () => (await entries()).some((e) => e.status === "failed"), {
    timeout: 30_000,
    timeoutMsg: "the failure is not in the history",
  });
  assert.match((await entries())[0].text, /refused the API key/);
  // The failed row carries its fix: the provider's key.
  const fix = await browser.$(`${byTestId("cron-run-error")} ${byTestId("remedy-provider-key")}`);
  await fix.waitForDisplayed({ timeout: 10_000, timeoutMsg: "the failed row has no fix" });
  // The failure's notice is urgent (it stays); the jobs that went well have
  // quiet ones of their own, which fade.
  const notice = await browser.$(`${byTestId("notice")}[data-urgent="true"]`);
  await notice.waitForDisplayed({ timeout: 15_000 });
  assert.match(await notice.getText(), /Scheduled job failed: Fragile/);
  await shot(browser, "cron-failed-en");
  // It leads to the job, from any view.
  await click("nav-activity");
  await notice.$(byTestId("notice-open")).click();
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)) === "#/cron/fragile", {
    timeout: 10_000,
    timeoutMsg: "the failure's notice did not open its job",
  });
  await click("cron-job-press_pulse");
});

test("the Cron view in Spanish", async () => {
  await click("quick-lang-es");
  await browser.waitUntil(async () => (await browser.$("h1").getText()) === "Tareas programadas", {
    timeout: 10_000,
    timeoutMsg: "the view is not in Spanish",
  });
  assert.equal(await (await el("cron-resume")).getText(), "Reanudar");
  assert.match(await (await el("cron-schedule")).getText(), /^cada minuto/);
  await shot(browser, "cron-history-es");
  await click("cron-edit");
  await el("cron-dialog").then((e) => e.waitForDisplayed());
  assert.equal(await browser.$("#dialog-title").getText(), "Editar «Press pulse»");
  await shot(browser, "cron-dialog-es");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("cron-dialog"));
  await click("quick-lang-en");
});
