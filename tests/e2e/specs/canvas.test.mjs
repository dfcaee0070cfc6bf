// The canvas in the real window (SPEC C1–C8, D1–D3), against the scripted
// provider: create a canvas, add items (one through a drop), add two
// variants, generate them all and watch the text stream in, generate again
// for a second round, pick the older round in the Rounds view and open the
// diff, export to a file and read it back, and see it all in the Console.
//
// The drops are synthetic `drop` events carrying a DataTransfer — a link,
// then a JPEG file drawn in the page: a real drag from the desktop cannot
// be driven through WebDriver. The image goes the real way from there
// (IPC, stored as an artifact, normalised to WebP for models). The
// native save dialog is real: it is answered with xdotool (the path typed
// into its name field, then Return), and the backend writes the file.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, launchApp, shot, startDriver, startScriptedProvider, waitGone } from "./harness.mjs";


let driver;
let browser;
let provider;

const SCRIPT = {
  rules: [
    {
      when: { lastUserContains: "Cheerful" },
      reply: { type: "text", text: "1/ Bees pollinate three of every four crops! 🐝\n\n2/ No bees, no summer fruit." },
      repeat: true,
      delayMs: 60,
    },
    {
      when: { systemContains: "thread for X" },
      reply: { type: "text", text: "1/ Bees pollinate three of every four food crops.\n\n2/ Their decline threatens fruit harvests." },
      repeat: true,
      delayMs: 60,
    },
    {
      reply: { type: "text", text: "TL;DR: bees carry most food crops.\n\n- The FAO report counts it.\n- Hedgerows help." },
      repeat: true,
      delayMs: 60,
    },
  ],
};

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

const startProvider = (dataDir) => startScriptedProvider(dataDir, SCRIPT, "canvas-script");

const el = (id) => browser.$(byTestId(id));

/** Types `path` into the GTK save dialog titled `title` and confirms it. */
async function answerSaveDialog(title, path) {
  const xdotool = (...args) => execFileSync("xdotool", args, { encoding: "utf8" }).trim();
  let window = "";
  const deadline = Date.now() + 15_000;
  while (!window && Date.now() < deadline) {
    try {
      // Shown (mapped), not only created: keys typed before would be lost.
      window = xdotool("search", "--onlyvisible", "--name", title).split("\n")[0];
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  assert.ok(window, `no save dialog titled "${title}" appeared`);
  // No window manager under Xvfb: focus it directly, then type through XTEST.
  xdotool("windowfocus", "--sync", window);
  xdotool("key", "ctrl+a");
  xdotool("type", "--delay", "5", path);
  xdotool("key", "Return");
}

const click = (id) => clickTestId(browser, id);

before(async () => {
  driver = await startDriver({ portOffset: 4 });
  provider = await startProvider(driver.dataDir);
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  // The canvas holds a dropped photo, which is sent with the prompt: the
  // model must accept images (issue 14; "gpt-test" does not by its name).
  colmena("model", "images", "scripted/gpt-test", "on");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

test("a canvas: items (one dropped), two variants generated with the text streaming in", async () => {
  await click("nav-canvas");
  await click("new-canvas");
  const name = await el("canvas-name");
  await name.waitForDisplayed({ timeout: 10_000 });
  await name.setValue("Bees and crops");
  await browser.keys("Enter");

  await (await el("item-title")).setValue("FAO report: pollinators");
  await (await el("item-snippet")).setValue("Bees and other pollinators take part in 75 % of food crops.");
  await click("add-item");
  // A synthetic drop of a link onto the items column.
  await browser.execute(() => {
    const zone = document.querySelector('[data-testid="items-column"]');
    const data = new DataTransfer();
    data.setData("text/plain", "https://example.org/hives-2026");
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  await browser.waitUntil(async () => (await browser.$$('[data-testid^="item-"]').length) >= 2 + 2, {
    timeout: 10_000,
    timeoutMsg: "the dropped link did not become an item",
  });
  // A photo file dropped in: drawn on a canvas element, sent as a JPEG File.
  await browser.executeAsync((done) => {
    const picture = document.createElement("canvas");
    picture.width = 1600;
    picture.height = 1200;
    const g = picture.getContext("2d");
    const sky = g.createLinearGradient(0, 0, 1600, 1200);
    sky.addColorStop(0, "#f59e0b");
    sky.addColorStop(1, "#1d4ed8");
    g.fillStyle = sky;
    g.fillRect(0, 0, 1600, 1200);
    picture.toBlob(
      (blob) => {
        const data = new DataTransfer();
        data.items.add(new File([blob], "bees.jpg", { type: "image/jpeg" }));
        const zone = document.querySelector('[data-testid="items-column"]');
        zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        done();
      },
      "image/jpeg",
      0.9,
    );
  });
  await browser.waitUntil(async () => (await browser.$$('[data-testid^="item-"]').length) >= 3 + 2, {
    timeout: 15_000,
    timeoutMsg: "the dropped image did not become an item",
  });
  const detail = JSON.parse(colmena("--json", "canvas", "list"))[0];
  const canvasId = detail.id;
  const shown = JSON.parse(colmena("--json", "canvas", "show", canvasId));
  assert.equal(shown.name, "Bees and crops");
  assert.deepEqual(
    shown.items.map((i) => [i.sourceKind, i.title]),
    [
      ["custom", "FAO report: pollinators"],
      ["webpage", "https://example.org/hives-2026"],
      ["custom", "bees.jpg"],
    ],
  );
  const image = shown.items[2];
  assert.match(image.snippet, /Image 1600×1200 jpeg/);
  assert.match(image.snippet, /1024×768 WebP/);
  assert.ok(image.raw.artifactId && image.raw.modelArtifactId, JSON.stringify(image.raw));
  // The image item shows its picture: the copy made for models, decoded.
  const thumb = await browser.$(`[data-testid="item-${image.id}"] [data-testid="item-thumb"]`);
  await thumb.waitForDisplayed({ timeout: 10_000 });
  await browser.waitUntil(async () => (await thumb.getProperty("naturalWidth")) === 1024, {
    timeout: 10_000,
    timeoutMsg: "the thumbnail did not load the 1024 px model copy",
  });
  await thumb.scrollIntoView({ block: "center" });
  await shot(browser, "canvas-image-item");

  // An empty canvas offers its formats as tiles (review item 9).
  const tiles = await el("preset-tiles");
  await tiles.waitForDisplayed({ timeout: 10_000 });
  assert.match(await tiles.getText(), /X thread/);
  assert.match(await tiles.getText(), /The gist in a few lines/);
  await shot(browser, "canvas-preset-tiles");
  for (const [preset, prompt] of [
    ["x-thread", "Serious, for a general audience"],
    ["tldr-brief", ""],
  ]) {
    await click("add-variant");
    await (await el("variant-preset")).selectByAttribute("value", preset);
    if (prompt) await (await el("new-variant-prompt")).setValue(prompt);
    await click("save-variant");
    await waitGone(browser, byTestId("add-variant-dialog"), 10_000);
  }
  const variants = JSON.parse(colmena("--json", "canvas", "show", canvasId)).variants;
  assert.equal(variants.length, 2);
  const [thread] = variants;

  await click("generate-all");
  // The text streams in: a card is seen writing before it is done.
  const card = await el(`variant-${thread.id}`);
  await browser.waitUntil(async () => (await card.getAttribute("data-status")) === "streaming", {
    timeout: 10_000,
    interval: 20,
    timeoutMsg: "no variant was seen streaming",
  });
  await shot(browser, "canvas-streaming");
  await browser.waitUntil(
    async () => {
      const all = JSON.parse(colmena("--json", "canvas", "show", canvasId)).variants;
      return all.every((v) => v.status === "done");
    },
    { timeout: 20_000, timeoutMsg: "generate all did not finish" },
  );
  await browser.waitUntil(async () => (await (await card.$(byTestId("variant-output"))).getText()).includes("Bees pollinate three of every four food crops."), {
    timeout: 10_000,
  });
  // The window's events can trail the store: wait for every card to say done.
  await browser.waitUntil(
    async () => {
      for (const v of variants) if ((await (await el(`variant-${v.id}`)).getAttribute("data-status")) !== "done") return false;
      return true;
    },
    { timeout: 20_000, timeoutMsg: "a card never said done" },
  );
  await shot(browser, "canvas-generated");
});

test("a second round, the older one picked in the Rounds view, the diff, and an export to a file", async () => {
  const canvasId = JSON.parse(colmena("--json", "canvas", "list"))[0].id;
  const thread = JSON.parse(colmena("--json", "canvas", "show", canvasId)).variants[0];
  const card = await el(`variant-${thread.id}`);
  const prompt = await card.$(byTestId("variant-prompt"));
  await prompt.click();
  await browser.keys(["Control", "a"]);
  await prompt.setValue("Cheerful, for everyone");
  await (await card.$(byTestId("variant-output"))).click(); // blur saves it
  await browser.waitUntil(async () => JSON.parse(colmena("--json", "canvas", "show", canvasId)).variants[0].prompt === "Cheerful, for everyone", {
    timeout: 10_000,
  });
  await (await card.$(byTestId("generate"))).click();
  await browser.waitUntil(async () => (await (await card.$(byTestId("round-label"))).getText()) === "Round 2 of 2", { timeout: 20_000 });
  assert.match(await (await card.$(byTestId("variant-output"))).getText(), /No bees, no summer fruit/);

  await (await card.$(byTestId("open-rounds"))).click();
  const dialog = await el("rounds-dialog");
  await dialog.waitForDisplayed({ timeout: 10_000 });
  const diff = await el("round-diff");
  assert.match(await diff.getHTML(), /<ins>/);
  assert.match(await diff.getHTML(), /<del>/);
  await shot(browser, "canvas-rounds-diff");
  await click("use-round-0");
  await browser.waitUntil(async () => JSON.parse(colmena("--json", "canvas", "show", canvasId)).variants[0].activeRound === 0, {
    timeout: 10_000,
  });
  const rounds = JSON.parse(colmena("--json", "canvas", "rounds", thread.id));
  assert.equal(rounds.length, 2, "selecting the older round keeps the newer one");
  await browser.keys("Escape");
  await browser.waitUntil(async () => (await (await card.$(byTestId("round-label"))).getText()) === "Round 1 of 2", { timeout: 10_000 });

  // The native save dialog, answered through the X server.
  const file = join(driver.dataDir, "..", `bees-${process.pid}.md`);
  await (await card.$(byTestId("export-variant"))).click();
  await answerSaveDialog("Export as markdown", file);
  await browser.waitUntil(
    () => {
      try {
        return readFileSync(file, "utf8").length > 0;
      } catch {
        return false;
      }
    },
    { timeout: 10_000, timeoutMsg: "the export file was not written" },
  );
  const written = readFileSync(file, "utf8");
  assert.ok(written.startsWith("# Bees and crops\n\n1/ Bees pollinate three of every four food crops."), written);
  assert.match(written, /- FAO report: pollinators/);
  assert.match(written, /- \[https:\/\/example\.org\/hives-2026\]\(https:\/\/example\.org\/hives-2026\)/);
});

test("Activity shows what the canvas did and the export count", async () => {
  await click("nav-activity");
  const feed = await el("now-feed");
  await feed.waitForDisplayed({ timeout: 10_000 });
  // The feed reads as sentences; each line keeps its operation in `data-tool`.
  const tools = await browser.execute(() => [...document.querySelectorAll('[data-testid="activity-line"]')].map((l) => l.dataset.tool));
  for (const tool of ["session.export_variant", "session.select_round", "session.generate_variant", "session.generate_all", "session.add_item"]) {
    assert.ok(tools.includes(tool), `${tool} missing from the feed: ${tools}`);
  }
  assert.equal(await (await el("kpi-exports-value")).getText(), "1");
  await shot(browser, "activity-canvas-log");
});
