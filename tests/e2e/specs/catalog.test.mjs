// The catalog and memory in the real window: the first-run choice of
// specialists, an agent whose tools are picked as chips, a tool glob (the
// advanced mode) that expands live (and the error for a glob that matches
// nothing), skills as named toggles and with a markdown preview, tools, and
// memory searched as you type.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, completeFirstRun, fillField, launchApp, shot, startDriver, waitGone } from "./harness.mjs";

let driver;
let browser;

before(async () => {
  driver = await startDriver({ portOffset: 1 });
  browser = await launchApp();
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

const el = (id) => browser.$(byTestId(id));

const click = (id) => clickTestId(browser, id);

const typeInto = (selector, text) => fillField(browser, selector, text);

test("the first run offers the eight specialists and installs the chosen ones", async () => {
  await el("first-run").then((e) => e.waitForDisplayed({ timeout: 15_000 }));
  // Connecting a model comes first; the specialists are the next step.
  const skipConnect = await el("connect-skip");
  if (await skipConnect.isExisting()) await skipConnect.click();
  await browser.$('[data-testid^="persona-"]').waitForDisplayed({ timeout: 15_000 });
  const cards = await browser.$$('[data-testid^="persona-"]');
  assert.equal(cards.length, 8);
  await shot(browser, "first-run-light-en");
  await completeFirstRun(browser, ["web_researcher", "browser_operator"]);
  await el("tab-agents").then((e) => e.waitForDisplayed());
});

test("tools are picked as chips from the catalog, skills as named toggles", async () => {
  await click("new-agent");
  await typeInto("#agent-name", "Lectora");
  const box = await browser.$("#agent-tools");
  await box.click();
  await box.setValue("fetch");
  await el("suggest-web_fetch").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await shot(browser, "agent-tool-suggestions");
  await browser.keys("Enter");
  await el("tool-chip-web_fetch").then((e) => e.waitForDisplayed());
  const research = await el("skill-toggle-web-research");
  assert.match(await research.getText(), /Web research/);
  await research.scrollIntoView({ block: "center" });
  await research.click();
  assert.equal(await research.getAttribute("aria-checked"), "true");
  await shot(browser, "agent-chips-and-skills");
  await click("save-agent");
  await el("agent-lectora").then((e) => e.waitForDisplayed());
  await browser.waitUntil(async () => (await el("save-bar-status").then((e) => e.getText())) === "All changes saved");
  assert.equal(await el("tool-chip-web_fetch").then((e) => e.isExisting()), true);
});

test("an agent's tool glob expands as you type; a glob that matches nothing is refused next to the field", async () => {
  await click("new-agent");
  await typeInto("#agent-name", "Diseño");
  await click("tools-advanced");
  await typeInto("#agent-tools", "image_*, web_fetch");
  const expansion = await el("expansion-image_*");
  await expansion.waitForDisplayed({ timeout: 10_000 });
  assert.match(await expansion.getText(), /image_metadata[\s\S]*image_transform/);

  await typeInto("#agent-tools", "image_*, zzz_*");
  await el("unmatched-zzz_*").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await shot(browser, "agent-glob-preview");

  await click("save-agent");
  const error = await el("error-agent-tools");
  await error.waitForDisplayed();
  assert.match(await error.getText(), /zzz_\*/);
  await shot(browser, "agent-glob-error");

  await typeInto("#agent-tools", "image_*");
  await click("save-agent");
  await el("agent-diseno").then((e) => e.waitForDisplayed());
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Diseño");
  assert.equal(await el("error-agent-tools").then((e) => e.isExisting()), false);
  await shot(browser, "agent-saved");
});

test("skills show their markdown rendered; tools list with their switches", async () => {
  await click("tab-skills");
  await click("skill-web-research");
  const preview = await el("skill-preview");
  await preview.waitForDisplayed();
  assert.equal(await preview.$("h1").getText(), "Web research");
  await shot(browser, "skills-markdown-preview");

  await click("tab-tools");
  await el("tool-web_fetch").then((e) => e.waitForDisplayed());
  const fetchSwitch = await browser.$(`${byTestId("tool-web_fetch")} [role="switch"]`);
  assert.equal(await fetchSwitch.getAttribute("aria-checked"), "true", "web_fetch was activated with the specialists");
  const cliSwitch = await browser.$(`${byTestId("tool-cli_exec")} [role="switch"]`);
  assert.equal(await cliSwitch.getAttribute("aria-checked"), "false", "software_engineer was not chosen");
  await shot(browser, "tools");
});

test("memory is searched as you type, with the match highlighted", async () => {
  await click("nav-memory");
  for (const [title, content] of [
    ["presupuesto", "Presupuesto del viaje: 5000 euros."],
    ["viaje", "Viaje a Lisboa en mayo, hotel cerca del río."],
  ]) {
    await click("new-memory");
    await typeInto("#memory-title", title);
    await typeInto("#memory-content", content);
    await click("save-memory");
    await waitGone(browser, byTestId("memory-dialog"));
  }
  await el("memory-viaje").then((e) => e.waitForDisplayed());
  await typeInto('[data-testid="memory-search"]', "lisb");
  const hit = await el("memory-hit-viaje");
  await hit.waitForDisplayed({ timeout: 10_000 });
  assert.match(await hit.$("mark").getText(), /Lisboa/i);
  assert.equal(await el("memory-hit-presupuesto").then((e) => e.isExisting()), false);
  await shot(browser, "memory-search");
});

test("the catalog in Spanish and dark", async () => {
  await click("quick-lang-es");
  await click("quick-theme");
  await click("nav-catalog");
  await click("tab-agents");
  await click("agent-diseno");
  await browser.waitUntil(async () => (await browser.$("h1").getText()) === "Catálogo");
  await shot(browser, "catalog-dark-es");
  await click("tab-specialists");
  await shot(browser, "specialists-dark-es");
  await click("quick-lang-en");
  await click("quick-theme");
});
