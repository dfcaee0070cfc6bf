// The first minute (issue 37, item 2), in the real window: from a fresh
// data dir with a model server on this machine (the scripted provider on
// LM Studio's port), the app finds and connects it by itself, and "Finish"
// is the one click to the first streamed draft — it tests the model, takes
// the recommended specialists and opens the sample canvas, already
// writing. Then, from a fresh data dir again, the person's name asked in
// step 1 (their name on the bus) and step 3's paste box: a link
// pasted there becomes the first canvas (the page's title and text), its
// drafts writing from it. Both languages and themes photographed.

import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, fillField, killApp, launchApp, localServerScript, LM_STUDIO_PORT, shot, startDriver, startScriptedProvider, waitGone } from "./harness.mjs";

const MODEL = "scripted-writer";
const HELLO = "Hello! I am the scripted writer, ready to help.";
const BRIEF = "TL;DR: the library now opens until midnight on weekdays.";
const THREAD = "1/ Night owls, rejoice: the city library stays open until midnight.";
const PAGE = "<html><head><title>Bees return to the city</title></head><body><p>Urban hives doubled this year.</p></body></html>";

let driver;
let browser;
let llm;
let page;
let pageUrl;

before(async () => {
  driver = await startDriver({ portOffset: 26 });
  llm = await startScriptedProvider(driver.dataDir, localServerScript(MODEL, HELLO, BRIEF, THREAD), "first-minute-lmstudio", LM_STUDIO_PORT);
  page = createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(PAGE);
  });
  await new Promise((resolve) => page.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${page.address().port}/bees.html`;
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await llm?.stop();
  await new Promise((resolve) => page?.close(resolve));
});

const click = (id) => clickTestId(browser, id);
const look = () => browser.execute(() => ({ lang: document.documentElement.lang, theme: document.documentElement.dataset.theme }));

/** Sets language and theme with the first run's own switches. */
async function setLook(lang, theme) {
  await click(`first-run-lang-${lang}`);
  await browser.waitUntil(async () => (await look()).lang === lang, { timeoutMsg: `language ${lang} not applied` });
  if ((await look()).theme !== theme) await click("first-run-theme");
  await browser.waitUntil(async () => (await look()).theme === theme, { timeoutMsg: `theme ${theme} not applied` });
}

/** What every variant card's output shows now. */
async function outputs() {
  return browser.execute(() => [...document.querySelectorAll('[data-testid="variant-output"]')].map((o) => o.textContent));
}

test("from launch to the first streamed draft, the one click is Finish", async () => {
  browser = await launchApp();
  await browser.$(byTestId("first-run")).waitForDisplayed({ timeout: 20_000 });
  // Found and connected without a click.
  const finish = await browser.$(byTestId("connect-finish"));
  await finish.waitForDisplayed({ timeout: 20_000, timeoutMsg: "the local server was not connected by itself" });
  await shot(browser, "first-minute-finish-en-light");
  await setLook("es", "dark");
  await shot(browser, "first-minute-finish-es-dark");
  await setLook("en", "light");

  await click("connect-finish");
  await waitGone(browser, byTestId("first-run"), 30_000);
  await browser.$(byTestId("canvas-board")).waitForDisplayed({ timeout: 15_000 });
  await browser.waitUntil(
    async () => {
      const texts = await outputs();
      return texts.some((t) => t.includes("midnight on weekdays")) && texts.some((t) => t.includes("Night owls"));
    },
    { timeout: 30_000, timeoutMsg: "the sample's drafts were not written after Finish" },
  );
  await browser.$(byTestId("canvas-next-step")).waitForDisplayed({ timeout: 15_000 });
  await shot(browser, "first-minute-drafts-en-light");
  // Finish tested the model, so it is the default; the recommended specialists are in.
  assert.match(colmenaCli(driver.dataDir, "model", "default"), new RegExp(`lm_studio/${MODEL}`));
  const agents = JSON.parse(colmenaCli(driver.dataDir, "--json", "agent", "list"));
  assert.ok(agents.some((a) => a.id === "web_researcher"), "the recommended specialists are installed");
  assert.ok(!agents.some((a) => a.id === "software_engineer" && a.enabled), "one that runs programs is not switched on by default");
  assert.ok(agents.some((a) => a.id === "web_researcher" && a.enabled));
});

test("a link pasted in step 3 becomes the first canvas: the page's title and text, its drafts writing", async () => {
  await browser.deleteSession();
  await killApp(driver.dataDir, "SIGTERM");
  rmSync(driver.dataDir, { recursive: true, force: true });
  mkdirSync(driver.dataDir);
  browser = await launchApp();
  await browser.$(byTestId("first-run")).waitForDisplayed({ timeout: 20_000 });
  await browser.$(byTestId("connect-test-panel")).waitForDisplayed({ timeout: 20_000 });
  // The person says what to call them; it is their name on the bus.
  await fillField(browser, byTestId("first-run-name"), "Ana");
  await click("connect-test");
  await browser.$(byTestId("connect-works")).waitForDisplayed({ timeout: 20_000 });
  await click("connect-continue");
  await click("install-specialists");
  await browser.$(byTestId("step-sample")).waitForDisplayed();
  await fillField(browser, byTestId("sample-topic"), pageUrl);
  await browser.waitUntil(async () => (await browser.$(byTestId("sample-open")).getText()) === "Open my canvas");
  await shot(browser, "first-minute-paste-en-light");
  await setLook("es", "dark");
  await browser.waitUntil(async () => (await browser.$(byTestId("sample-open")).getText()) === "Abrir mi lienzo");
  await shot(browser, "first-minute-paste-es-dark");
  await setLook("en", "light");

  await click("sample-open");
  await waitGone(browser, byTestId("first-run"), 30_000);
  const name = await browser.$(byTestId("canvas-name"));
  await name.waitForDisplayed({ timeout: 15_000 });
  await browser.waitUntil(async () => (await name.getValue()) === "Bees return to the city", {
    timeout: 10_000,
    timeoutMsg: "the canvas is not named by the page",
  });
  const me = JSON.parse(colmenaCli(driver.dataDir, "--json", "author", "list")).find((a) => a.kind === "user");
  assert.equal(me.name, "Ana", "the name given in the first run");
  const canvases = JSON.parse(colmenaCli(driver.dataDir, "--json", "canvas", "list"));
  assert.equal(canvases.length, 1, "only the pasted page's canvas, not also the sample");
  const detail = JSON.parse(colmenaCli(driver.dataDir, "--json", "canvas", "show", canvases[0].id));
  assert.equal(detail.items[0].sourceKind, "webpage");
  assert.match(detail.items[0].snippet, /Urban hives doubled this year/);
  await browser.waitUntil(async () => (await outputs()).filter((t) => t.trim() !== "").length === 2, {
    timeout: 30_000,
    timeoutMsg: "the drafts did not write from the page",
  });
  await shot(browser, "first-minute-page-canvas-en-light");
});
