// A canvas that gives drafts the room (issue 12, item 2), in the real
// window at 1280 wide: three variants side by side without a sideways
// scroll (the items column folded, as it starts with three; opened, it is
// remembered and the cards wrap instead of scrolling sideways); an
// output edited by hand becomes a new round marked as such, on the card and
// in the Rounds view with what changed; a slow generation shows its text on
// the card mid-way and keeps it until the round replaces it; deleting a
// variant, a source or the canvas waits for the undo toast; the list of
// canvases filters by name. Both themes, both languages are photographed.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, launchApp, shot, startDriver, startScriptedProvider, waitGone } from "./harness.mjs";

let driver;
let browser;
let provider;

const SLOW_TEXT =
  "## Why bees matter\n\nBees **pollinate** three of every four food crops, and a hive visits millions of flowers in a season. " +
  "Without them orchards go quiet, almonds and apples fail, and the summer market loses its colour.\n\n" +
  "- Plant hedgerows\n- Leave a corner wild\n- Buy local honey";

const SCRIPT = {
  rules: [
    // Word by word, slowly: a generation seen half-way.
    { when: { lastUserContains: "Slowly" }, reply: { type: "text", text: SLOW_TEXT }, repeat: true, delayMs: 180 },
    {
      reply: { type: "text", text: "## Bees\n\n1/ Bees **pollinate** most food crops.\n\n2/ Their decline threatens *fruit* harvests." },
      repeat: true,
      delayMs: 10,
    },
  ],
};

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const json = (...args) => JSON.parse(colmena("--json", ...args));
const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);

let canvasId;
let variants;

before(async () => {
  driver = await startDriver({ portOffset: 8 });
  provider = await startScriptedProvider(driver.dataDir, SCRIPT, "canvas-room-script");
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  canvasId = json("canvas", "create", "Room to write").id;
  colmena("canvas", "add-item", canvasId, "--title", "FAO report: pollinators", "--snippet", "Bees take part in 75 % of food crops.");
  for (const [preset, prompt] of [
    ["x-thread", "Serious, for a general audience"],
    ["linkedin-long", "Warm, for farmers"],
    ["newsletter-section", "Slowly, for the Sunday letter"],
  ]) {
    colmena("canvas", "add-variant", canvasId, "--preset", preset, "--prompt", prompt);
  }
  variants = json("canvas", "show", canvasId).variants;
  colmena("canvas", "generate", variants[0].id);
  colmena("canvas", "generate", variants[1].id);
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

/** The layout, measured in the page: what scrolls sideways, where the cards are. */
function measure() {
  return browser.execute(() => {
    const grid = document.querySelector('[data-testid="variants"]');
    const main = document.querySelector(".main") ?? document.scrollingElement;
    const cards = [...grid.querySelectorAll('[data-testid^="variant-"][data-status]')];
    const box = (e) => e.getBoundingClientRect();
    return {
      width: window.innerWidth,
      main: { scrollWidth: main.scrollWidth, clientWidth: main.clientWidth },
      page: { scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth },
      grid: { scrollWidth: grid.scrollWidth, clientWidth: grid.clientWidth, right: box(grid).right, bottom: box(grid).bottom },
      viewportHeight: window.innerHeight,
      cards: cards.map((c) => ({ top: box(c).top, left: box(c).left, right: box(c).right, bottom: box(c).bottom, scrollWidth: c.scrollWidth, clientWidth: c.clientWidth })),
    };
  });
}

function assertNoSidewaysScroll(m, what) {
  assert.ok(m.main.scrollWidth <= m.main.clientWidth, `${what}: the view scrolls sideways ${JSON.stringify(m.main)}`);
  assert.ok(m.page.scrollWidth <= m.page.clientWidth, `${what}: the page scrolls sideways ${JSON.stringify(m.page)}`);
  assert.ok(m.grid.scrollWidth <= m.grid.clientWidth, `${what}: the grid scrolls sideways ${JSON.stringify(m.grid)}`);
  for (const c of m.cards) assert.ok(c.scrollWidth <= c.clientWidth, `${what}: a card is clipped sideways ${JSON.stringify(c)}`);
}

test("three variants side by side at 1280 without a sideways scroll; the items column folds, and stays as left", async () => {
  await click("nav-canvas");
  await (await el(`variant-${variants[2].id}`)).waitForDisplayed({ timeout: 15_000 });
  // Three drafts: the items column starts folded to give them the room.
  await (await el("show-items")).waitForDisplayed({ timeout: 10_000 });
  const m = await measure();
  assert.ok(m.width >= 1270 && m.width <= 1290, `the window is 1280 wide: ${m.width}`);
  assertNoSidewaysScroll(m, "three variants");
  assert.equal(m.cards.length, 3);
  const tops = m.cards.map((c) => Math.round(c.top));
  assert.ok(Math.max(...tops) - Math.min(...tops) <= 1, `the three cards are on one row: ${JSON.stringify(m.cards)}`);
  for (let i = 1; i < 3; i++) assert.ok(m.cards[i].left >= m.cards[i - 1].right, "side by side, in order");
  assert.ok(m.cards[2].right <= m.grid.right + 0.5, "the last card ends inside the grid");
  // The grid takes the height of the window, not a strip of 300-px cards.
  assert.ok(m.cards[0].bottom >= m.viewportHeight - 60, `the cards reach the bottom of the window: ${m.cards[0].bottom} of ${m.viewportHeight}`);
  const output = await (await el(`variant-${variants[0].id}`)).$(byTestId("variant-output"));
  assert.match(await output.getHTML(), /<strong>pollinate<\/strong>/, "the output is rendered as markdown");
  await shot(browser, "canvas-room-three-light");

  await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === "dark", { timeout: 5_000 });
  await shot(browser, "canvas-room-three-dark");
  await click("quick-theme");

  // Opened by hand: the cards wrap rather than scroll sideways.
  await click("show-items");
  await (await el("hide-items")).waitForDisplayed({ timeout: 10_000 });
  assertNoSidewaysScroll(await measure(), "items open");
  await shot(browser, "canvas-room-items-open");
  // Remembered over the default: still open after a reload.
  await browser.refresh();
  await (await el("hide-items")).waitForDisplayed({ timeout: 15_000 });
  // The list of canvases folds too; nothing scrolls sideways either way.
  await click("hide-canvas-list");
  await (await el("show-canvas-list")).waitForDisplayed({ timeout: 10_000 });
  assertNoSidewaysScroll(await measure(), "list folded");
  await click("show-canvas-list");
  await click("hide-items");
  await (await el("show-items")).waitForDisplayed({ timeout: 10_000 });
});

test("an edited output is saved as a new round, marked as written by hand", async () => {
  const card = await el(`variant-${variants[0].id}`);
  await (await card.$(byTestId("edit-variant"))).click();
  const editor = await card.$(byTestId("variant-edit"));
  await editor.waitForDisplayed({ timeout: 10_000 });
  assert.match(await editor.getValue(), /Bees \*\*pollinate\*\* most food crops/, "the editor starts from the text shown");
  await editor.click();
  await browser.keys(["Control", "a"]);
  await browser.keys("Delete");
  // Typed line by line: WebDriver's setValue drops line breaks, and its
  // key actions drop a letter typed twice in a row.
  const lines = ["## Bees", "", "1/ Bees **pollinate** three in four food crops, says the FAO.", "", "2/ Their decline threatens *fruit* harvests."];
  for (const [i, line] of lines.entries()) {
    if (i > 0) await browser.keys("Enter");
    if (line) await editor.addValue(line);
  }
  await shot(browser, "canvas-room-editing");
  await (await card.$(byTestId("save-edit"))).click();
  await (await card.$(byTestId("by-hand"))).waitForDisplayed({ timeout: 10_000 });
  await waitGone(browser, `${byTestId(`variant-${variants[0].id}`)} ${byTestId("variant-edit")}`);
  assert.equal(await (await card.$(byTestId("round-label"))).getText(), "Round 2 of 2");
  assert.match(await (await card.$(byTestId("variant-output"))).getText(), /three in four food crops, says the FAO/);
  assert.match(await (await card.$(byTestId("variant-output"))).getHTML(), /<h2>Bees<\/h2>/, "the hand-written markdown is rendered");
  const rounds = json("canvas", "rounds", variants[0].id);
  assert.deepEqual(
    rounds.map((r) => r.byHand),
    [false, true],
    "appended, and only the new one by hand",
  );
  assert.match(rounds[0].output, /most food crops/, "the generated round is kept as it was");

  await (await card.$(byTestId("open-rounds"))).click();
  await (await el("rounds-dialog")).waitForDisplayed({ timeout: 10_000 });
  await (await el("round-by-hand")).waitForDisplayed({ timeout: 10_000 });
  const diff = await (await el("round-diff")).getHTML();
  // One phrase changed, not three loose words.
  assert.match(diff, /<del>most food crops\.<\/del>\s*<ins>three in four food crops, says the FAO\.<\/ins>/);
  assert.match(await (await el("changed-model")).getText(), /scripted\/gpt-test.*Written by hand/s);
  await shot(browser, "canvas-room-rounds-by-hand");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("rounds-dialog"));
});

test("mid-generation, the streamed text is on the card, and stays until the round replaces it", async () => {
  const card = await el(`variant-${variants[2].id}`);
  await (await card.$(byTestId("generate"))).click();
  const output = await card.$(byTestId("variant-output"));
  await browser.waitUntil(async () => (await output.getText()).includes("pollinate three of every four"), {
    timeout: 20_000,
    timeoutMsg: "the streamed text never showed on the card",
  });
  assert.equal(await card.getAttribute("data-status"), "streaming");
  assert.ok(!(await output.getText()).includes("Buy local honey"), "seen half-way, before the end");
  await shot(browser, "canvas-room-streaming");
  await browser.waitUntil(async () => (await (await card.$(byTestId("round-label"))).getText()) === "Round 1 of 1", { timeout: 30_000 });
  assert.match(await output.getText(), /Buy local honey/);
  assert.equal(await card.getAttribute("data-status"), "done");
});

test("in Spanish and dark, a deleted variant waits for its undo toast, and Undo keeps it", async () => {
  await click("quick-lang-es");
  await click("quick-theme");
  // The Rounds view in Spanish and dark: the hand-written round and what changed.
  await (await (await el(`variant-${variants[0].id}`)).$(byTestId("open-rounds"))).click();
  await (await el("round-by-hand")).waitForDisplayed({ timeout: 10_000 });
  assert.match(await (await el("round-by-hand")).getText(), /Escrita a mano/);
  await shot(browser, "canvas-room-rounds-es-dark");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("rounds-dialog"));
  const doomed = variants[1].id;
  await (await (await el(`variant-${doomed}`)).$(byTestId("remove-variant"))).click();
  await (await el("undo-toast")).waitForDisplayed({ timeout: 5_000 });
  await waitGone(browser, byTestId(`variant-${doomed}`));
  assert.match(await (await el("undo-toast")).getText(), /Borrada la variante/);
  await shot(browser, "canvas-room-undo-es-dark");
  assert.equal(json("canvas", "show", canvasId).variants.length, 3, "nothing is deleted while Undo is offered");
  await click("undo");
  await (await el(`variant-${doomed}`)).waitForDisplayed({ timeout: 5_000 });

  await (await (await el(`variant-${doomed}`)).$(byTestId("remove-variant"))).click();
  await (await el("undo-toast")).waitForDisplayed({ timeout: 5_000 });
  await waitGone(browser, byTestId("undo-toast"), 20_000);
  await browser.waitUntil(() => json("canvas", "show", canvasId).variants.length === 2, { timeout: 10_000, timeoutMsg: "the variant was not deleted" });
  await click("quick-lang-en");
  await click("quick-theme");
});

test("deleting the canvas sits in its ⋯ menu, away from Generate all, and waits for the toast too", async () => {
  await click("canvas-menu");
  await (await el("delete-canvas")).waitForDisplayed({ timeout: 5_000 });
  await shot(browser, "canvas-room-menu");
  await click("delete-canvas");
  await (await el("undo-toast")).waitForDisplayed({ timeout: 5_000 });
  await waitGone(browser, byTestId("canvas-board"));
  assert.equal(json("canvas", "list").length, 1, "not deleted yet");
  await click("undo");
  await (await el("canvas-board")).waitForDisplayed({ timeout: 5_000 });
  assert.equal(await (await el("canvas-name")).getValue(), "Room to write");
  assert.equal(json("canvas", "list").length, 1);
});

test("a source deleted from inside its dialog waits for the toast, whose Undo sits above the dialog", async () => {
  const source = json("canvas", "add-source", "Notas de campo", "--kind", "custom");
  await click("show-items");
  await click("open-sources");
  await (await el("sources-dialog")).waitForDisplayed({ timeout: 10_000 });
  await browser.waitUntil(async () => (await (await el("sources-dialog")).getText()).includes("Notas de campo"), { timeout: 10_000 });
  await click("remove-source");
  await (await el("undo-toast")).waitForDisplayed({ timeout: 5_000 });
  assert.ok(!(await (await el("sources-dialog")).getText()).includes("Notas de campo"), "hidden at once");
  await shot(browser, "canvas-room-source-undo");
  await click("undo");
  await browser.waitUntil(async () => (await (await el("sources-dialog")).getText()).includes("Notas de campo"), { timeout: 5_000 });
  assert.ok(await (await el("sources-dialog")).isDisplayed(), "Undo did not close the dialog");
  await click("remove-source");
  await waitGone(browser, byTestId("undo-toast"), 20_000);
  await browser.waitUntil(() => !json("canvas", "sources").some((s) => s.id === source.id), { timeout: 10_000, timeoutMsg: "the source was not deleted" });
  await browser.keys("Escape");
  await waitGone(browser, byTestId("sources-dialog"));
});

test("the list of canvases filters by name", async () => {
  colmena("canvas", "create", "Otra cosa");
  await browser.waitUntil(async () => (await browser.$$('[data-testid="canvas-list"] .item-list [data-testid^="canvas-"]').length) === 2, {
    timeout: 10_000,
    timeoutMsg: "the canvas made from the command line did not show in the list",
  });
  await (await el("canvas-filter")).setValue("room");
  await browser.waitUntil(async () => (await browser.$$('[data-testid="canvas-list"] .item-list [data-testid^="canvas-"]').length) === 1, { timeout: 5_000 });
  const names = await browser.execute(() => [...document.querySelectorAll('[data-testid="canvas-list"] .item-title')].map((t) => t.textContent));
  assert.deepEqual(names, ["Room to write"]);
  assert.ok(await (await el(`canvas-${canvasId}`)).isDisplayed(), "the one that matches is the one shown");
  await shot(browser, "canvas-room-filter");
});
