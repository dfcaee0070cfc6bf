// The desktop on a team's bus (issue 17), in the real window against a real
// `colmena serve` on its own workspace: Settings → Team bus connects with
// the person's author id and token (a wrong token is refused and nothing is
// kept; the token comes back only masked); the Inbox view's team entry
// sends through the outbox and shows the person's inbox there; with the
// server stopped, a message waits and the window says the bus cannot be
// reached; with the server back it leaves, once. English and Spanish are
// photographed.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { CLI, byTestId, chooseOption, clickTestId, colmenaCli, completeFirstRun, fillField, launchApp, shot, startDriver, stopChild } from "./harness.mjs";

let driver;
let browser;
let teamDir;
let port;
let server;
let ana;
let beto;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);

function freePort() {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address();
      probe.close(() => resolvePort(free));
    });
  });
}

/** `colmena serve` for the team, on its own workspace and port. */
function startTeamServer() {
  const child = spawn(CLI, ["--data-dir", teamDir, "serve", "--bind", `127.0.0.1:${port}`, "--no-scheduler"], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolveServer, reject) => {
    child.stdout.on("data", (chunk) => {
      if (String(chunk).includes("listening")) resolveServer(child);
    });
    child.on("error", reject);
  });
}

function stopTeamServer() {
  return new Promise((resolveStop) => {
    server.once("exit", () => resolveStop());
    server.kill("SIGTERM");
  });
}

/** The mail Beto has on the team's bus, oldest first. */
function betoInbox() {
  const list = JSON.parse(colmenaCli(teamDir, "--json", "message", "inbox", "--as", beto.id, "--peek", "--all", "--limit", "500"));
  return list.map((m) => m.body);
}

before(async () => {
  driver = await startDriver({ portOffset: 21 });
  teamDir = mkdtempSync(join(tmpdir(), "colmena-team-"));
  ana = JSON.parse(colmenaCli(teamDir, "--json", "author", "create", "Ana"));
  beto = JSON.parse(colmenaCli(teamDir, "--json", "author", "create", "Beto"));
  colmenaCli(teamDir, "message", "send", ana.id, "Bienvenida al equipo", "--as", beto.id);
  port = await freePort();
  server = await startTeamServer();
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  if (server) await stopChild(server);
  if (teamDir) rmSync(teamDir, { recursive: true, force: true });
});

test("a wrong token is refused and nothing is kept; the right one joins, shown masked", async () => {
  await click("nav-settings");
  await click("settings-bus");
  await el("team-connect").then((e) => e.waitForDisplayed());
  await fillField(browser, "#team-url", `http://127.0.0.1:${port}`);
  await fillField(browser, "#team-author", ana.id);
  await fillField(browser, "#team-token", "colmena_not_a_real_token");
  await click("team-connect");
  await browser.waitUntil(async () => (await browser.$$(".banner").length) > 0 || (await el("error-team-token").isExisting()), {
    timeout: 10_000,
    timeoutMsg: "a wrong token was not refused",
  });
  assert.equal(await el("team-connected").isExisting(), false);

  await fillField(browser, "#team-token", ana.token);
  await click("team-connect");
  await el("team-connected").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  const card = await (await el("team-connected")).getText();
  assert.match(card, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.ok(!card.includes(ana.token), "the clear token is shown");
  assert.match(await (await el("team-link")).getText(), /Reachable/);
  await shot(browser, "team-bus-settings-en");
});

test("the Inbox's team entry sends through the outbox and shows the inbox there", async () => {
  await click("nav-inbox");
  await click("team-entry");
  await el("team-panel").then((e) => e.waitForDisplayed());
  await browser.waitUntil(async () => (await (await el("team-inbox")).getText()).includes("Bienvenida al equipo"), {
    timeout: 15_000,
    timeoutMsg: "the inbox on the team bus is not shown",
  });
  await chooseOption(browser, "team-to", beto.id);
  await fillField(browser, "#team-body", "Hola desde el escritorio");
  await click("team-send");
  await browser.waitUntil(async () => (await (await el("team-outbox")).getText()).includes("Sent"), {
    timeout: 15_000,
    timeoutMsg: "the message did not leave",
  });
  assert.deepEqual(betoInbox(), ["Hola desde el escritorio"]);
  await shot(browser, "team-bus-panel-en");
});

test("with the team bus down a message waits, the window says so, and it leaves once when it is back", async () => {
  await stopTeamServer();
  await chooseOption(browser, "team-to", beto.id);
  await fillField(browser, "#team-body", "Escrito sin conexión");
  await click("team-send");
  await el("team-link-down").then((e) => e.waitForDisplayed({ timeout: 20_000 }));
  await browser.waitUntil(async () => (await (await el("team-outbox")).getText()).includes("Waiting"), {
    timeout: 10_000,
    timeoutMsg: "the message is not shown waiting",
  });
  assert.equal(await (await el("team-waiting-count")).getText(), "1");
  await shot(browser, "team-bus-down-en");
  assert.deepEqual(betoInbox(), ["Hola desde el escritorio"]);

  server = await startTeamServer();
  await browser.waitUntil(async () => !(await el("team-waiting-count").isExisting()), {
    timeout: 60_000,
    timeoutMsg: "the waiting message did not leave after the bus came back",
  });
  await el("team-link-down").then((e) => e.waitForDisplayed({ reverse: true, timeout: 20_000 }));
  assert.deepEqual(betoInbox(), ["Hola desde el escritorio", "Escrito sin conexión"]);
});

test("the team panel reads in Spanish too", async () => {
  await click("quick-lang-es");
  await browser.waitUntil(async () => (await (await el("team-panel")).getText()).includes("Bandeja de salida"), {
    timeout: 10_000,
    timeoutMsg: "the panel is not in Spanish",
  });
  assert.match(await (await el("team-outbox")).getText(), /Enviado/);
  await shot(browser, "team-bus-panel-es");
  await click("quick-lang-en");
});
