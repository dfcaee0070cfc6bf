// Catalog → MCP servers in the real window (issue 13): a stdio server is
// added by hand (the reference "everything" server, installed by
// scripts/setup.sh), saving tests it and its tools appear; a program that
// dies says why with its stderr and exit code; the Tools list shows MCP
// tools under their server and filters by source; an agent is given the
// server's tools (the MCP servers toggles, or a pattern); a Claude Desktop
// configuration is previewed (one new, one invalid) and imported — in both
// themes, and once in Spanish.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { byTestId, chooseOption, clickTestId, colmenaCli, completeFirstRun, fillField, launchApp, repo, retryStale, shot, startDriver, waitGone } from "./harness.mjs";

const EVERYTHING = join(repo, "tests/mcp/node_modules/.bin/mcp-server-everything");

let driver;
let browser;

before(async () => {
  if (!existsSync(EVERYTHING)) throw new Error(`the reference MCP server is not installed (scripts/setup.sh): ${EVERYTHING}`);
  driver = await startDriver({ portOffset: 13 });
  browser = await launchApp();
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const text = (id) => retryStale(async () => (await el(id)).getText());
const shown = (id) => el(id).then((e) => e.isDisplayed()).catch(() => false);

async function setTheme(theme) {
  const current = await browser.execute(() => document.documentElement.dataset.theme);
  if (current !== theme) await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === theme);
}

/** Types `lines` into a textarea, Enter between them, as a person does. */
async function fillLines(selector, lines) {
  await fillField(browser, selector, lines[0]);
  for (const line of lines.slice(1)) {
    await browser.keys("Enter");
    await browser.$(selector).then((area) => area.addValue(line));
  }
}

/** What an element holds. WebKitWebDriver's getText leaves out text whose
 * box clips its overflow (the state badge, the command line): read the DOM. */
const content = (element) => browser.execute((node) => node.textContent, element);

/** Closes what an earlier failed test left open, so each test starts on the window. */
async function closeDialogs() {
  const open = () => browser.execute(() => [...document.querySelectorAll('[role="dialog"]')].filter((d) => d.getClientRects().length > 0).length);
  for (let i = 0; i < 3; i++) {
    const before = await open();
    if (before === 0) return;
    await browser.keys("Escape");
    // Escape closes the top one; one that will not close gets another Escape.
    await browser.waitUntil(async () => (await open()) < before, { timeout: 5_000 }).catch(() => {});
  }
}

async function openMcpTab() {
  await click("nav-catalog");
  await click("tab-mcp");
  await el("mcp-panel").then((e) => e.waitForDisplayed());
}

test("a stdio server is added by hand; saving tests it and lists its tools", async () => {
  await completeFirstRun(browser, []);
  colmenaCli(driver.dataDir, "agent", "add", "Probador", "--tools", "web_fetch");
  colmenaCli(driver.dataDir, "agent", "add", "Patronista", "--tools", "web_fetch");
  await openMcpTab();
  assert.match(await browser.$(".mcp-empty").getText(), /No MCP servers yet/);
  await shot(browser, "mcp-empty-light");

  await click("mcp-add");
  await el("mcp-dialog").then((e) => e.waitForDisplayed());
  await fillField(browser, "#mcp-name", "everything");
  await fillField(browser, "#mcp-command", EVERYTHING);
  await fillLines("#mcp-args", ["stdio"]);
  await click("mcp-env-add");
  await fillField(browser, byTestId("mcp-env-name-0"), "EVERYTHING_API_KEY");
  await fillField(browser, byTestId("mcp-env-value-0"), "sk-e2e-0123456789abcdef");
  await click("mcp-env-secret-0");
  assert.equal(await el("mcp-env-value-0").then((e) => e.getAttribute("type")), "password");
  await shot(browser, "mcp-add-dialog-light");

  await click("mcp-save");
  const result = await el("mcp-test-result");
  await result.waitForDisplayed({ timeout: 60_000 });
  assert.equal(await result.getAttribute("data-ok"), "true", await result.getText());
  await el("mcp-tool-mcp__everything__echo").then((e) => e.waitForExist());
  assert.match(await text("mcp-test-result"), /It works: \d+ tools/);
  // The secret came back sealed: its row shows the mask, never the value.
  const secret = await el("mcp-env-value-0");
  assert.equal(await secret.getValue(), "");
  assert.match(await secret.getAttribute("placeholder"), /…/);
  assert.doesNotMatch(await secret.getAttribute("placeholder"), /0123456789abcdef/);
  await shot(browser, "mcp-add-dialog-tested-light");
  await click("mcp-dialog-close");
  await waitGone(browser, byTestId("mcp-dialog"));

  const row = await el("mcp-server-everything");
  await row.waitForDisplayed();
  let badge = "";
  await browser
    .waitUntil(async () => /^Running, \d+ tools$/.test((badge = await content(await row.$(byTestId("mcp-status"))))), { timeout: 15_000 })
    .catch(async () => {
      await shot(browser, "mcp-list-running-light-failed");
      assert.fail(`the row does not say the server runs: «${badge}»`);
    });
  assert.equal(await content(await row.$(byTestId("mcp-target"))), `${EVERYTHING} stdio`);
  await shot(browser, "mcp-list-running-light");
});

test("a program that dies says why: the message, its stderr and its exit code", async () => {
  await closeDialogs();
  await click("mcp-add");
  await el("mcp-dialog").then((e) => e.waitForDisplayed());
  await fillField(browser, "#mcp-name", "Broken tracker");
  await fillField(browser, "#mcp-command", "/bin/sh");
  await fillLines("#mcp-args", ["-c", "echo fatal: TRACKER_TOKEN is not set >&2; exit 3"]);
  await click("mcp-save");
  const result = await el("mcp-test-result");
  await result.waitForDisplayed({ timeout: 60_000 });
  await browser.$(".mcp-dialog-result .mcp-stderr summary").click();
  await browser.$(".mcp-dialog-result .mcp-stderr pre").scrollIntoView({ block: "end" });
  await shot(browser, "mcp-add-dialog-failed-light");
  assert.equal(await result.getAttribute("data-ok"), "false");
  assert.match(await text("mcp-stderr"), /fatal: TRACKER_TOKEN is not set/);
  assert.match(await text("mcp-exit-code"), /Exit code 3/);
  await click("mcp-dialog-close");
  await waitGone(browser, byTestId("mcp-dialog"));

  const row = await el("mcp-server-broken_tracker");
  await browser.waitUntil(async () => (await row.$(byTestId("mcp-status")).getAttribute("data-state")) === "failed", {
    timeout: 15_000,
    timeoutMsg: "the row does not show the failure",
  });
  assert.match(await content(await row.$(byTestId("mcp-status"))), /^Failed: /);
  await row.$(".mcp-stderr summary").click();
  assert.match(await row.$(byTestId("mcp-stderr")).getText(), /TRACKER_TOKEN/);
  await shot(browser, "mcp-list-failed-light");

  // Switched off, it is off and cannot be tested.
  await click("mcp-enabled-broken_tracker");
  await browser.waitUntil(async () => (await row.$(byTestId("mcp-status")).getAttribute("data-state")) === "disabled", { timeout: 10_000 });
  assert.equal(await el("mcp-test-broken_tracker").then((e) => e.isEnabled()), false);
});

test("the Tools list shows MCP tools under their server and filters by source", async () => {
  await closeDialogs();
  await click("tab-tools");
  await el("tool-mcp__everything__echo").then((e) => e.waitForExist({ timeout: 10_000 }));
  assert.match(await el("tool-group-mcp:everything").then((e) => e.getText()), /MCP SERVER · EVERYTHING|MCP server · everything/i);
  await chooseOption(browser, "tools-source", "mcp:everything");
  await browser.waitUntil(async () => !(await el("tool-web_fetch").then((e) => e.isExisting())));
  const echo = await el("tool-mcp__everything__echo");
  assert.equal(await echo.$(byTestId("tool-source")).getText(), "everything");
  await shot(browser, "mcp-tools-by-source-light");
  await chooseOption(browser, "tools-source", "builtin");
  await browser.waitUntil(async () => !(await el("tool-mcp__everything__echo").then((e) => e.isExisting())));
  assert.equal(await el("tool-web_fetch").then((e) => e.isExisting()), true);
  await chooseOption(browser, "tools-source", "all");
});

test("an agent is given the server's tools: by its toggle, or by a pattern", async () => {
  await closeDialogs();
  await click("tab-agents");
  await click("agent-probador");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Probador");
  await click("mcp-toggle-everything");
  assert.match(await text("agent-mcp-tools"), /mcp__everything__echo/);
  await click("save-agent");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "All changes saved", { timeout: 10_000 });
  await el("agent-mcp-servers").then((e) => e.scrollIntoView({ block: "center" }));
  await shot(browser, "mcp-agent-servers-light");
  const probador = JSON.parse(colmenaCli(driver.dataDir, "--json", "agent", "show", "probador"));
  assert.deepEqual(probador.mcpServers, ["everything"]);
  assert.ok(probador.tools.includes("mcp__everything__echo"), `the agent's tools: ${probador.tools}`);

  await click("agent-patronista");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Patronista");
  await click("tools-advanced");
  await fillField(browser, "#agent-tools", "web_fetch, mcp__everything__*");
  const expansion = await el("expansion-mcp__everything__*");
  await expansion.waitForDisplayed({ timeout: 10_000 });
  assert.match(await expansion.getText(), /mcp__everything__echo/);
  await click("save-agent");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "All changes saved", { timeout: 10_000 });
  const patronista = JSON.parse(colmenaCli(driver.dataDir, "--json", "agent", "show", "patronista"));
  assert.ok(patronista.tools.includes("mcp__everything__echo"), `the agent's tools: ${patronista.tools}`);
});

test("a Claude Desktop configuration is previewed, then imported", async () => {
  await closeDialogs();
  await openMcpTab();
  await click("mcp-import");
  await el("mcp-import-dialog").then((e) => e.waitForDisplayed());
  const config = {
    mcpServers: {
      "echo-two": { command: EVERYTHING, args: ["stdio"], env: { ECHO_API_KEY: "sk-import-0123456789abcdef", MODE: "${ECHO_MODE:-plain}" } },
      broken: { args: ["--no-command"] },
    },
  };
  await fillLines("#mcp-import-text", JSON.stringify(config, null, 2).split("\n"));
  await click("mcp-import-preview");
  const fresh = await el("mcp-import-entry-echo-two");
  await fresh.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await fresh.getAttribute("data-status"), "new");
  assert.match(await fresh.getText(), /Will be added/);
  assert.match(await fresh.$(byTestId("mcp-import-secrets")).getText(), /ECHO_API_KEY/);
  assert.match(await fresh.$(byTestId("mcp-import-refs")).getText(), /\$\{ECHO_MODE\}/);
  const broken = await el("mcp-import-entry-broken");
  assert.equal(await broken.getAttribute("data-status"), "invalid");
  assert.equal(await el("mcp-import-choose-broken").then((e) => e.isEnabled()), false);
  await shot(browser, "mcp-import-preview-light");

  await click("mcp-import-run");
  await el("mcp-import-summary").then((e) => e.waitForDisplayed({ timeout: 15_000 }));
  assert.match(await text("mcp-import-summary"), /Added 1 server: echo-two/);
  await shot(browser, "mcp-import-done-light");
  await click("mcp-import-done");
  await waitGone(browser, byTestId("mcp-import-dialog"));
  await el("mcp-server-echo_two").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  assert.equal(await content(await el("mcp-server-echo_two").then((e) => e.$(byTestId("mcp-status")))), "Stopped");
});

test("in dark, and in Spanish: the list, the dialogs and the Tools list", async () => {
  await closeDialogs();
  await setTheme("dark");
  await openMcpTab();
  await shot(browser, "mcp-list-dark");
  await click("mcp-edit-everything");
  await el("mcp-dialog").then((e) => e.waitForDisplayed());
  await shot(browser, "mcp-edit-dialog-dark");
  await click("mcp-save");
  await el("mcp-test-result").then((e) => e.waitForDisplayed({ timeout: 60_000 }));
  await shot(browser, "mcp-edit-dialog-tested-dark");
  await click("mcp-dialog-close");
  await waitGone(browser, byTestId("mcp-dialog"));

  await click("mcp-import");
  await fillField(browser, "#mcp-import-text", JSON.stringify({ mcpServers: { everything: { command: EVERYTHING, args: ["stdio"] }, "remote-api": { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } } } }));
  await click("mcp-import-preview");
  await el("mcp-import-entry-everything").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  assert.equal(await el("mcp-import-entry-everything").then((e) => e.getAttribute("data-status")), "exists");
  await shot(browser, "mcp-import-preview-dark");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("mcp-import-dialog"));

  await click("mcp-add-preset");
  await el("mcp-presets").then((e) => e.waitForDisplayed());
  await shot(browser, "mcp-presets-dark");
  await click("mcp-preset-use-filesystem");
  await el("mcp-dialog").then((e) => e.waitForDisplayed());
  assert.equal(await browser.$("#mcp-name").getValue(), "filesystem");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("mcp-dialog"));

  await click("tab-tools");
  await chooseOption(browser, "tools-source", "mcp");
  await el("tool-mcp__everything__echo").then((e) => e.waitForExist({ timeout: 10_000 }));
  await shot(browser, "mcp-tools-by-source-dark");
  await chooseOption(browser, "tools-source", "all");

  await click("quick-lang-es");
  await openMcpTab();
  await browser.waitUntil(async () => /^En marcha, \d+ herramientas$/.test(await content(await el("mcp-server-everything").then((e) => e.$(byTestId("mcp-status"))))), {
    timeout: 10_000,
    timeoutMsg: "the running badge is not in Spanish",
  });
  await shot(browser, "mcp-list-dark-es");
  await click("mcp-add");
  await el("mcp-dialog").then((e) => e.waitForDisplayed());
  assert.equal(await browser.$("#dialog-title").getText(), "Añadir un servidor MCP");
  await shot(browser, "mcp-add-dialog-dark-es");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("mcp-dialog"));
  await click("quick-lang-en");
  await setTheme("light");
  assert.ok(await shown("mcp-panel"));
});
