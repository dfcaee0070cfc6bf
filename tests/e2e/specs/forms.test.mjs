// Forms and lists that scale, in the real window: a long agents list keeps
// its "New agent" button full height (it was squashed to ~22 px once the
// list scrolled), agents are grouped and filtered, an edit raises the
// Save bar and leaving asks first, Ctrl+S saves, and the command palette
// (Ctrl+K) navigates, opens an agent by name and switches theme — in both
// languages and both themes.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, fillField, languageShown, launchApp, shot, startDriver, waitGone } from "./harness.mjs";

let driver;
let browser;

before(async () => {
  driver = await startDriver({ portOffset: 11 });
  browser = await launchApp();
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const text = async (id) => (await el(id)).getText();
const press = (...keys) => browser.keys(keys);

test("a long agents list scrolls, grouped, and its New agent button keeps its height", async () => {
  await completeFirstRun(browser, ["web_researcher"]);
  for (let i = 1; i <= 24; i++) {
    colmenaCli(driver.dataDir, "agent", "add", `Ayudante ${String(i).padStart(2, "0")}`, "--tools", "web_fetch");
  }
  // Leave and come back: the list is fetched anew.
  await click("nav-memory");
  await click("nav-catalog");
  await el("agent-ayudante_24").then((e) => e.waitForExist({ timeout: 15_000 }));

  const pane = await browser.$(".list-pane");
  const [scrollHeight, clientHeight] = await browser.execute((node) => [node.scrollHeight, node.clientHeight], pane);
  assert.ok(scrollHeight > clientHeight, `the list is long enough to scroll (${scrollHeight} > ${clientHeight})`);
  const button = await el("new-agent");
  const height = await browser.execute((node) => node.getBoundingClientRect().height, button);
  assert.ok(height >= 32, `New agent is ${height}px high`);
  assert.equal(await button.getAttribute("title"), "New agent (Ctrl+N)");

  // The groups' headings, in order (textContent: the heading is shown in capitals).
  // Eight catalog specialists: one switched on, seven off.
  const headings = await browser.execute(() => [...document.querySelectorAll(".list-group-title")].map((h) => h.textContent));
  assert.deepEqual(headings, ["Yours24", "Specialists on1", "Specialists off7"]);
  await shot(browser, "forms-agents-long-list");

  await fillField(browser, byTestId("agents-filter"), "ayudante 2");
  await browser.waitUntil(async () => /^7 of \d+$/.test(await text("agents-filter-count")));
  assert.equal(await el("agents-group-specialistsOn").then((e) => e.isExisting()), false);
  await shot(browser, "forms-agents-filtered");
  await press("Escape");
  await browser.waitUntil(async () => (await el("agent-web_researcher").then((e) => e.isExisting())) === true);
});

test("an edit raises the Save bar; leaving asks first; Ctrl+S saves", async () => {
  await click("agent-ayudante_01");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Ayudante 01");
  assert.equal(await text("save-bar-status"), "All changes saved");

  await fillField(browser, "#agent-description", "Lee páginas y resume.");
  await click("skill-toggle-web-research");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "2 unsaved changes");
  assert.equal(await el("save-bar").then((e) => e.getAttribute("data-dirty")), "true");
  await shot(browser, "forms-save-bar-dirty");

  await click("agent-ayudante_02");
  await el("leave-dialog").then((e) => e.waitForDisplayed());
  await shot(browser, "forms-leave-dialog");
  await click("keep-editing");
  await waitGone(browser, byTestId("leave-dialog"));
  assert.equal(await browser.$("#agent-description").getValue(), "Lee páginas y resume.");

  await browser.$("#agent-description").click();
  await press("Control", "s");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "All changes saved", { timeout: 10_000 });
  await click("agent-ayudante_02");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Ayudante 02");
  await click("agent-ayudante_01");
  await browser.waitUntil(async () => (await browser.$("#agent-description").getValue()) === "Lee páginas y resume.");
});

test("the ethics rule form ends in the same Save bar; Ctrl+N in a tab is its own New", async () => {
  await click("tab-ethics");
  await el("new-rule").then((e) => e.waitForDisplayed());
  assert.equal(await el("new-rule").then((e) => e.getAttribute("title")), "Add rule (Ctrl+N)");
  await press("Control", "n");
  await browser.$("#rule-title").waitForDisplayed();
  assert.equal(await text("save-bar-status"), "Not saved yet");
  await fillField(browser, "#rule-title", "Cite sources");
  await fillField(browser, "#rule-text", "Say where each fact comes from.");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "2 unsaved changes");
  await shot(browser, "forms-ethics-save-bar");
  await click("save-rule");
  await waitGone(browser, "#rule-title");
  assert.match(await browser.$(".rule-list").getText(), /Cite sources/);

  // Deleting can be undone while the toast is up.
  await browser.$('[data-testid^="delete-rule-"]').click();
  const toast = await el("undo-toast");
  await toast.waitForDisplayed();
  assert.match(await toast.getText(), /Deleted «Cite sources»/);
  assert.doesNotMatch(await browser.$(".rule-list").getText(), /Cite sources/);
  await shot(browser, "forms-undo-delete");
  await click("undo");
  await browser.waitUntil(async () => /Cite sources/.test(await browser.$(".rule-list").getText()));
  await click("tab-agents");
});

test("the palette opens with Ctrl+K, goes to a view and opens an agent by name", async () => {
  await press("Control", "k");
  const input = await el("palette-input");
  await input.waitForDisplayed();
  await shot(browser, "forms-palette-light-en");
  await input.setValue("swarms");
  await el("palette-go-swarms").then((e) => e.waitForDisplayed());
  await press("Enter");
  await waitGone(browser, byTestId("command-palette"));
  await browser.waitUntil(async () => (await el("nav-swarms").then((e) => e.getAttribute("aria-current"))) === "page");

  await press("Control", "k");
  await el("palette-input").then((e) => e.setValue("ayudante 07"));
  await el("palette-agent-ayudante_07").then((e) => e.waitForDisplayed());
  await press("Enter");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue().catch(() => "")) === "Ayudante 07", {
    timeout: 10_000,
    timeoutMsg: "the palette did not open the agent",
  });
  assert.equal(await el("nav-catalog").then((e) => e.getAttribute("aria-current")), "page");

  // Ctrl+4 is the fourth view (Activity, Canvas, Catalog, Swarms…).
  await press("Control", "4");
  await browser.waitUntil(async () => (await el("nav-swarms").then((e) => e.getAttribute("aria-current"))) === "page");
  await press("Control", "3");
  await browser.waitUntil(async () => (await el("nav-catalog").then((e) => e.getAttribute("aria-current"))) === "page");
});

test("in Spanish and dark: the palette switches theme, the editor's chips, toggles and badges read right", async () => {
  await click("quick-lang-es");
  await languageShown(browser, "es");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "Todo guardado", { timeout: 30_000 });
  await press("Control", "k");
  await el("palette-input").then((e) => e.setValue("oscuro"));
  await el("palette-theme").then((e) => e.waitForDisplayed());
  await shot(browser, "forms-palette-light-es");
  await press("Enter");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === "dark");

  await click("agent-ayudante_03");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Ayudante 03");
  await fillField(browser, "#agent-name", "Ayudante tres");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "1 cambio sin guardar");
  await shot(browser, "forms-editor-dark-es");
  await click("discard-changes");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "Todo guardado");

  // The sidebar's button opens it too, for those who do not know the keys.
  await click("open-palette");
  await el("palette-input").then((e) => e.waitForDisplayed());
  await shot(browser, "forms-palette-dark-es");
  await press("Escape");
  await waitGone(browser, byTestId("command-palette"));
  await click("tab-skills");
  await shot(browser, "forms-skills-dark-es");
  await click("quick-lang-en");
  await click("quick-theme");
});

test("the Inbox's people and roles have the same filter box", async () => {
  colmenaCli(driver.dataDir, "author", "create", "Clonador");
  await click("nav-inbox");
  await el("authors-filter").then((e) => e.waitForDisplayed());
  await browser.waitUntil(async () => (await browser.$$('[data-testid^="author-"]')).length >= 2, { timeout: 10_000 });
  await fillField(browser, byTestId("authors-filter"), "clon");
  await browser.waitUntil(async () => /^1 of \d+$/.test(await text("authors-filter-count")));
  await shot(browser, "forms-inbox-filter");
});
