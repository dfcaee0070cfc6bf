// The bus in the real window (SPEC B3, B5): compose in the Inbox view and see
// the message in the recipient's inbox — through the REST API with the
// recipient's own token too; a message sent over the REST API appears live,
// urgent and unread, without a refresh; a role registered in the view shows
// its token once, and that token opens its inbox; the local server's port
// in Settings.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, launchApp, shot, startDriver, waitGone, fillField } from "./harness.mjs";


let driver;
let browser;
let clonador;
let owner;
let api;

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

const el = (id) => browser.$(byTestId(id));

const click = (id) => clickTestId(browser, id);

async function rest(method, path, token, body) {
  assert.ok(api, "the local server's address is not known (the first test did not find it)");
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, json: response.status === 204 ? null : await response.json() };
}

/** The message cards of the list shown, as text. */
async function shownBodies(list) {
  const items = await browser.$$(`[data-testid="${list}"] .bus-body`);
  const texts = [];
  for (const item of items) texts.push(await item.getText());
  return texts;
}

before(async () => {
  driver = await startDriver({ portOffset: 3 });
  clonador = JSON.parse(colmena("--json", "author", "create", "Clonador"));
  owner = JSON.parse(colmena("--json", "author", "list")).find((a) => a.isOwner);
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

test("Settings shows where the local bus server listens", async () => {
  await click("nav-settings");
  await click("settings-server");
  // The server starts just after the app's first frame; Settings shows the
  // backend's answer once that start was tried: its address, or why not.
  const answer = () =>
    browser.execute(() => {
      const section = document.querySelector('[data-testid="section-server"]');
      return {
        url: section?.querySelector('[data-testid="server-url"]')?.textContent ?? null,
        problem: section?.querySelector(".banner-danger")?.textContent ?? null,
      };
    });
  await browser.waitUntil(async () => {
    const { url, problem } = await answer();
    return url !== null || problem !== null;
  }, { timeout: 30_000, timeoutMsg: "Settings never said where the local server listens, nor why it does not" });
  const { url, problem } = await answer();
  assert.equal(problem, null, `the local server is not serving: ${problem}`);
  api = url;
  assert.match(api, /^http:\/\/127\.0\.0\.1:\d+$/);
  const health = await fetch(`${api}/health`);
  assert.equal(health.status, 200);
  await shot(browser, "settings-server");
});

test("Connect AI clients gives the exact config, and a minted token opens /mcp", async () => {
  await click("nav-settings");
  await click("settings-connect");
  const config = await el("connect-config");
  await config.waitForDisplayed({ timeout: 10_000 });
  // Claude Code over stdio, as the owner: the command starts this
  // workspace's `colmena mcp`, no token needed.
  await browser.waitUntil(async () => (await config.getText()).startsWith("claude mcp add colmena"), {
    timeout: 10_000,
    timeoutMsg: "no claude mcp add command",
  });
  const command = await config.getText();
  assert.match(command, / mcp --data-dir /);
  assert.ok(command.includes(driver.dataDir), command);
  assert.ok(!command.includes("COLMENA_TOKEN"), "the owner needs no token over stdio");

  // Cursor over HTTP needs a token: minted on request, it opens /mcp.
  await click("connect-client-cursor");
  await click("connect-transport-http");
  await browser.waitUntil(async () => (await config.getText()).includes('"url"'), { timeout: 10_000 });
  assert.ok((await config.getText()).includes(`${api}/mcp`));
  await click("connect-mint");
  await browser.waitUntil(async () => /Bearer colmena_[0-9a-f]{64}/.test(await config.getText()), {
    timeout: 10_000,
    timeoutMsg: "no minted token in the config",
  });
  const json = JSON.parse(await config.getText());
  const server = json.mcpServers.colmena;
  const response = await fetch(server.url, {
    method: "POST",
    headers: { ...server.headers, accept: "application/json, text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "cursor", version: "1" } },
    }),
  });
  assert.equal(response.status, 200);
  const without = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.equal(without.status, 401);
  await shot(browser, "settings-connect");
});

test("a message composed in the Inbox view arrives in the recipient's inbox", async () => {
  await click("nav-inbox");
  await click("compose");
  await (await el("compose-to")).selectByAttribute("value", "clonador");
  await click("priority-urgent");
  await fillField(browser, "#compose-body", "¿Está listo el clon de voz?");
  await shot(browser, "inbox-compose");
  await click("compose-send");
  await waitGone(browser, byTestId("compose-dialog"), 10_000);

  // In the view: the recipient's inbox shows it, unread, urgent.
  await click("author-clonador");
  await browser.waitUntil(async () => (await shownBodies("inbox-list")).includes("¿Está listo el clon de voz?"), {
    timeout: 10_000,
    timeoutMsg: "the message is not in Clonador's inbox",
  });
  const unread = await el("unread-clonador");
  assert.equal(await unread.getText(), "1");
  // Over REST with the recipient's own token: there, from the owner.
  const { status, json } = await rest("GET", `/author/clonador/inbox`, clonador.token);
  assert.equal(status, 200);
  assert.equal(json.length, 1);
  assert.equal(json[0].from, owner.id);
  assert.equal(json[0].priority, "urgent");
  assert.equal(json[0].body, "¿Está listo el clon de voz?");
  // Read by its owner, it shows read in the view too (live).
  await browser.waitUntil(async () => !(await el("unread-clonador").isExisting()), {
    timeout: 10_000,
    timeoutMsg: "the unread count did not clear",
  });
});

test("a message sent over the REST API appears live, urgent and unread", async () => {
  await click(`author-${owner.id}`);
  const sent = await rest("POST", `/author/clonador/message-to/${owner.id}`, clonador.token, {
    body: "Sí: la voz está lista. Revisa el secret.",
    priority: "urgent",
  });
  assert.equal(sent.status, 201);
  const card = await el(`message-${sent.json.id}`);
  await card.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await card.getAttribute("data-unread"), "true");
  assert.ok(await card.$(byTestId("urgent-badge")).isDisplayed());
  assert.equal(await el("nav-unread").then((e) => e.getText()), "1");
  await shot(browser, "inbox-live");

  // Another author's token cannot post as Clonador.
  const forged = await rest("POST", `/author/clonador/message-to/${owner.id}`, "colmena_" + "0".repeat(64), { body: "x" });
  assert.equal(forged.status, 401);

  await click(`mark-read-${sent.json.id}`);
  await browser.waitUntil(async () => (await card.getAttribute("data-unread")) === "false", { timeout: 10_000 });
});

test("a role registered in the view shows its token once, and the token opens its inbox", async () => {
  await click("new-role");
  await fillField(browser, "#role-name", "Ambrosio");
  // A session outside Colmena: it reads its inbox with the token.
  await click("wake-mode-poll");
  await click("role-save");
  const token = await el("author-token");
  await token.waitForDisplayed({ timeout: 10_000 });
  const value = await token.getText();
  assert.match(value, /^colmena_[0-9a-f]{64}$/);
  await shot(browser, "inbox-role-token");
  await click("token-done");
  const { status, json } = await rest("GET", "/author/ambrosio/inbox", value);
  assert.equal(status, 200);
  assert.deepEqual(json, []);
  // The token is nowhere in the page once the panel is closed.
  const html = await browser.getPageSource();
  assert.ok(!html.includes(value), "the token is still in the page");
  await el("author-ambrosio").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await shot(browser, "inbox-roles");
});
