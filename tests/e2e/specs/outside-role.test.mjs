// A role that lives outside Colmena, in the real window (issue 15): made in
// the role dialog as "woken by a command" (the Claude Code example fills
// the argv; here a small script stands in for it), its command shown in
// the header, "Wake now" runs it with the role's token and the local
// server's URLs in its environment — and mail with shell syntax in it is
// never run. Screenshots of the dialog in English and Spanish.

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, launchApp, shot, startDriver, waitGone, languageShown, fillField } from "./harness.mjs";

let driver;
let browser;
let work;

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);

before(async () => {
  driver = await startDriver({ portOffset: 20 });
  work = mkdtempSync(join(tmpdir(), "colmena-e2e-outside-"));
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

test("a command role is made in the dialog, woken now, and its wake-up recorded", async () => {
  const script = join(work, "outside-session.sh");
  writeFileSync(script, '#!/bin/sh\nenv > "$1"\necho "outside session read $COLMENA_UNREAD message(s)"\n');
  chmodSync(script, 0o755);
  const envFile = join(work, "env");

  await click("nav-inbox");
  await click("new-role");
  await fillField(browser, "#role-name", "Fuera");
  await click("wake-mode-command");
  await click("wake-preset-claude");
  const argv = await el("wake-argv");
  await argv.waitForDisplayed({ timeout: 10_000 });
  const items = [];
  for (const item of await browser.$$(`${byTestId("wake-argv")} li`)) items.push(await item.getText());
  assert.deepEqual(items, [
    "claude",
    "-p",
    "Read your inbox with the colmena read_inbox tool and handle it",
    "--resume",
    "<session-id>",
  ]);
  await shot(browser, "outside-role-dialog-en");

  // The stand-in for Claude Code: the script, with the env file as its argument.
  await fillField(browser, "#wake-program", script);
  await fillField(browser, "#wake-args", envFile);
  await fillField(browser, "#wake-timeout", "60");
  await (await el("wake-env-hint")).scrollIntoView();
  await shot(browser, "outside-role-dialog-en-bottom");
  await click("role-save");
  await (await el("token-done")).waitForDisplayed({ timeout: 10_000 });
  await click("token-done");
  await waitGone(browser, byTestId("role-dialog"), 10_000);

  const marker = join(work, "pwned");
  colmena("message", "send", "fuera", `hola $(touch ${marker}) ; touch ${marker}`);
  await click("author-fuera");
  const command = await el("role-command");
  await command.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await command.getText(), `${script} ${envFile}`);
  await click("wake-now");
  await browser.waitUntil(() => existsSync(envFile), { timeout: 20_000, timeoutMsg: "the wake command never ran" });
  await browser.waitUntil(
    async () => {
      const [entry] = JSON.parse(colmena("--json", "author", "history", "fuera"));
      return entry?.finishedAt != null;
    },
    { timeout: 20_000, timeoutMsg: "the wake-up was not recorded" },
  );
  const [entry] = JSON.parse(colmena("--json", "author", "history", "fuera"));
  assert.equal(entry.kind, "command");
  assert.equal(entry.exitCode, 0);
  assert.equal(entry.error, null);
  assert.match(entry.output, /outside session read 1 message\(s\)/);
  assert.equal(existsSync(marker), false, "the message's text was run");
  const env = readFileSync(envFile, "utf8");
  assert.match(env, /^COLMENA_AUTHOR_ID=fuera$/m);
  assert.match(env, /^COLMENA_TOKEN=colmena_[0-9a-f]{64}$/m);
  assert.match(env, /^COLMENA_MCP_URL=http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
  await shot(browser, "outside-role-header-en");
});

test("the command section reads in Spanish too", async () => {
  await click("quick-lang-es");
  await languageShown(browser, "es");
  await click("edit-role");
  const fields = await el("wake-command-fields");
  await fields.waitForDisplayed({ timeout: 10_000 });
  assert.match(await fields.getText(), /¿Cómo se despierta este rol\?/);
  await shot(browser, "outside-role-dialog-es");
  await (await el("wake-env-hint")).scrollIntoView();
  await shot(browser, "outside-role-dialog-es-bottom");
});
