// The first run in the real window (issue 12, item 1): from an empty data
// dir, the scripted provider running AS A LOCAL SERVER ON LM STUDIO'S PORT
// (1234) is found and connected by the onboarding, "Test connection" streams its line,
// specialists are picked in words, and the sample canvas generates two
// variants — without a visit to Settings. Then Settings shows the model as
// the default, and the "no model" banner's button fixes a missing default.
// Every step is photographed in English and Spanish, light and dark.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, launchApp, localServerScript, LM_STUDIO_PORT, SCREENSHOTS, shot, startDriver, startScriptedProvider, waitGone } from "./harness.mjs";

const MODEL = "scripted-writer";
const HELLO = "Hello! I am the scripted writer, ready to help.";
const BRIEF = "TL;DR: the library now opens until midnight on weekdays.";
const THREAD = "1/ Night owls, rejoice: the city library stays open until midnight.";

let driver;
let browser;
let llm;

/** The scripted provider on LM Studio's usual port, listing one model. */
function startLocalServer(dir) {
  return startScriptedProvider(dir, localServerScript(MODEL, HELLO, BRIEF, THREAD), "onboarding-lmstudio", LM_STUDIO_PORT);
}

before(async () => {
  driver = await startDriver({ portOffset: 7 });
  llm = await startLocalServer(driver.dataDir);
  console.log(`screenshots: ${SCREENSHOTS}`);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await llm?.stop();
});

const click = (id) => clickTestId(browser, id);
const shown = (id) => browser.$(byTestId(id)).isDisplayed().catch(() => false);

async function text(id) {
  const el = await browser.$(byTestId(id));
  await el.waitForDisplayed({ timeout: 15_000 });
  return el.getText();
}

const look = () => browser.execute(() => ({ lang: document.documentElement.lang, theme: document.documentElement.dataset.theme }));

/** Sets language and theme with the given switches (first run or sidebar). */
async function setLook(lang, theme, ids) {
  await click(ids.lang(lang));
  await browser.waitUntil(async () => (await look()).lang === lang, { timeoutMsg: `language ${lang} not applied` });
  if ((await look()).theme !== theme) await click(ids.theme);
  await browser.waitUntil(async () => (await look()).theme === theme, { timeoutMsg: `theme ${theme} not applied` });
}

const FIRST_RUN = { lang: (l) => `first-run-lang-${l}`, theme: "first-run-theme" };
const SIDEBAR = { lang: (l) => `quick-lang-${l}`, theme: "quick-theme" };

/** The same screen in both languages and both themes; ends in English, light. */
async function everyLook(name, ids) {
  for (const [lang, theme] of [
    ["en", "light"],
    ["en", "dark"],
    ["es", "dark"],
    ["es", "light"],
  ]) {
    await setLook(lang, theme, ids);
    await shot(browser, `onboarding-${name}-${lang}-${theme}`);
  }
  await setLook("en", "light", ids);
}

test("first run: a local server is found, its test streams, specialists in words, the sample canvas generates", async () => {
  browser = await launchApp();
  await browser.$(byTestId("first-run")).waitForDisplayed({ timeout: 20_000 });

  // Step 1 — the scripted provider is found on LM Studio's port and
  // connected by itself (one server with a model: no click).
  await browser.$(byTestId("connect-test-panel")).waitForDisplayed({ timeout: 15_000 });
  assert.match(await text("connected-provider"), /LM Studio/);
  assert.equal(await browser.$(byTestId("connect-test-model")).getValue(), `lm_studio/${MODEL}`);
  await browser.$(byTestId("connect-finish")).waitForDisplayed();
  await everyLook("1-connect", FIRST_RUN);

  await click("connect-test");
  // Streaming: part of the line is on screen before the whole of it.
  await browser.waitUntil(
    async () => {
      const sofar = await browser.$(byTestId("connect-answer")).getText();
      return sofar.length > 0 && HELLO.startsWith(sofar) && sofar !== HELLO;
    },
    { timeout: 15_000, timeoutMsg: "the answer never showed part-way" },
  );
  await shot(browser, "onboarding-1-connect-streaming");
  await browser.$(byTestId("connect-works")).waitForDisplayed({ timeout: 15_000 });
  assert.equal(await text("connect-answer"), HELLO);
  assert.match(await text("connect-works"), /default model/);
  await everyLook("1-connect-works", FIRST_RUN);
  await click("connect-continue");

  // Step 2 — specialists said in words; none that runs programs is checked.
  await browser.$(byTestId("step-specialists")).waitForDisplayed();
  const checked = async (id) => (await browser.$(byTestId(`persona-${id}`)).getAttribute("aria-checked")) === "true";
  assert.equal(await checked("web_researcher"), true);
  assert.equal(await checked("software_engineer"), false, "runs programs: not pre-selected");
  // The browser operator's add-on is not installed: said, and not pre-selected.
  assert.equal(await checked("browser_operator"), false, "its tools are missing: not pre-selected");
  assert.match(await text("specialist-needs-browser_operator"), /Needs the Playwright add-on/);
  assert.doesNotMatch(await text("persona-web_researcher"), /web_\*/, "the card speaks in words");
  assert.match(await text("persona-web_researcher"), /sources/);
  await click("specialist-details-web_researcher");
  await browser.waitUntil(async () => (await browser.$(".persona-details[open]").isExisting()), { timeoutMsg: "details did not open" });
  assert.match(await browser.$(".persona-details[open]").getText(), /web_\*/);
  await everyLook("2-specialists", FIRST_RUN);
  await click("install-specialists");

  // Step 3 — the sample canvas, with the connected model (nothing pasted).
  await browser.$(byTestId("step-sample")).waitForDisplayed();
  assert.equal(await browser.$(byTestId("sample-topic")).getValue(), "");
  assert.match(await text("sample-summary"), /starts writing both drafts/);
  await everyLook("3-sample", FIRST_RUN);
  await click("sample-open");
  await waitGone(browser, byTestId("first-run"), 20_000);

  // Landed on the sample canvas: one item, two variants, no "no model" banner.
  const board = await browser.$(byTestId("canvas-board"));
  await board.waitForDisplayed({ timeout: 15_000 });
  assert.equal(await browser.$(byTestId("variants")).getAttribute("data-count"), "2");
  assert.equal(await shown("needs-model-banner"), false, "a model is connected and is the default");
  // The drafts start as the canvas opens: no click.
  await browser.waitUntil(
    async () => {
      const texts = [];
      for (const output of await browser.$$(byTestId("variant-output"))) texts.push(await output.getText());
      return texts.some((t) => t.includes("midnight on weekdays")) && texts.some((t) => t.includes("Night owls"));
    },
    { timeout: 30_000, timeoutMsg: "the two sample variants did not both get text" },
  );
  // Then one line on what to do next, once.
  await browser.$(byTestId("canvas-next-step")).waitForDisplayed({ timeout: 15_000 });
  assert.match(await text("canvas-next-step"), /round 2/);
  await everyLook("4-canvas-generated", SIDEBAR);
  await click("canvas-next-step-ok");
  await waitGone(browser, byTestId("canvas-next-step"));

  // Settings shows the connected model as the default — set by the onboarding.
  await click("nav-settings");
  const select = await browser.$(byTestId("default-model-select"));
  await select.waitForDisplayed({ timeout: 15_000 });
  await browser.waitUntil(async () => (await select.getValue()) === `lm_studio/${MODEL}`, {
    timeout: 10_000,
    timeoutMsg: "Settings does not show the new default model",
  });
  await shot(browser, "onboarding-5-settings-default");
});

test("without a default model the banner says so once, and offers to choose one", async () => {
  colmenaCli(driver.dataDir, "model", "default", "--clear");
  await click("nav-canvas");
  const banner = await browser.$(byTestId("needs-model-banner"));
  await banner.waitForDisplayed({ timeout: 15_000 });
  assert.equal((await browser.$$(byTestId("needs-model-banner"))).length, 1, "said once");
  await everyLook("6-needs-model-banner", SIDEBAR);

  // Models exist: the fix is choosing the default, not connecting another.
  const select = await browser.$(byTestId("remedy-default-model"));
  await select.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await select.getValue(), `lm_studio/${MODEL}`);
  await shot(browser, "onboarding-7-choose-default");
  await click("remedy-use-default");
  await waitGone(browser, byTestId("needs-model-banner"));
  assert.equal(colmenaCli(driver.dataDir, "model", "default").trim().includes(`lm_studio/${MODEL}`), true);
});
