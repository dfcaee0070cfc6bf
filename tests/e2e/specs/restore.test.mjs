// Restoring a copy from Settings → Data → Backups (issue 33), in the real
// window: a copy made with the master key sealed, then a change and the key
// file lost; "Restore…" with the passphrase closes the app, `colmena
// restore --after-close` puts store and key back and opens the app again,
// which says how it ended. A wrong passphrase first changes and closes
// nothing. Screenshots of the panel and of the outcome.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, fillField, launchApp, shot, startDriver } from "./harness.mjs";

let driver;
let browser;

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const click = (id) => clickTestId(browser, id);
const PASSPHRASE = "correct horse battery staple";

/** The app processes on this spec's data dir (the one the restore opened
 * runs outside the WebDriver session). */
function appsOnThisDataDir() {
  try {
    return execFileSync("pgrep", ["-f", `colmena-desktop --data-dir ${driver.dataDir}`], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

before(async () => {
  driver = await startDriver({ portOffset: 22 });
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  for (const pid of appsOnThisDataDir()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

test("a copy is restored from Settings with its key, and the app that opens again says so", async () => {
  // A sealed secret, then a copy of the store with the key sealed beside it.
  colmena("provider", "add", "Nube", "--kind", "openai_compatible", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "sk-e2e-restore-1234");
  await click("nav-settings");
  await click("settings-data");
  await click("backup-with-key");
  await fillField(browser, "#backup-passphrase", PASSPHRASE);
  await fillField(browser, "#backup-again", PASSPHRASE);
  await click("backup-now");
  await (await browser.$(byTestId("backup-made"))).waitForDisplayed();
  const copy = readdirSync(join(driver.dataDir, "backups")).find((name) => name.startsWith("colmena-") && name.endsWith(".db"));
  assert.ok(copy, "the copy is in the backups folder");

  // After the copy: an agent it does not hold, and the key file lost.
  colmena("agent", "add", "Despues", "--system-prompt", "made after the copy");
  const doctor = JSON.parse(colmena("--json", "doctor"));
  const keyFile = doctor.info.secrets.location;
  rmSync(keyFile);

  await click(`backup-restore-open-${copy}`);
  const panel = await browser.$(byTestId(`restore-${copy}`));
  await panel.waitForDisplayed();
  await fillField(browser, `[id="restore-${copy}-passphrase"]`, "not the passphrase");
  await click(`restore-${copy}-go`);
  const refused = await panel.$('[role="alert"]');
  await refused.waitForDisplayed();
  assert.match(await refused.getText(), /passphrase/i);
  assert.equal(existsSync(keyFile), false, "a wrong passphrase changed nothing");
  await fillField(browser, `[id="restore-${copy}-passphrase"]`, PASSPHRASE);
  await shot(browser, "backups-restore-panel");
  await click(`restore-${copy}-go`);

  // The app closes; the restore runs and opens it again, outside this session.
  const outcomeFile = join(driver.dataDir, "last-restore.json");
  await browser.waitUntil(async () => existsSync(outcomeFile) && appsOnThisDataDir().length > 0, {
    timeout: 120_000,
    timeoutMsg: "the restore never ended, or the app was not opened again",
  });
  const outcome = JSON.parse(readFileSync(outcomeFile, "utf8"));
  assert.equal(outcome.error, null, JSON.stringify(outcome));
  assert.equal(outcome.report.key.kind, "restored");
  assert.equal(existsSync(keyFile), true, "the key came back");
  const agents = colmena("agent", "list");
  assert.doesNotMatch(agents, /Despues/, "the store is the copy's");

  // The app it opened is the person's; here it is closed and opened again
  // under WebDriver, on the same data dir, to read what it shows.
  for (const pid of appsOnThisDataDir()) process.kill(pid, "SIGKILL");
  await browser.waitUntil(async () => appsOnThisDataDir().length === 0, { timeout: 60_000, timeoutMsg: "the reopened app did not close" });
  await browser.deleteSession().catch(() => {});
  browser = await launchApp();
  await click("nav-settings");
  await click("settings-data");
  const shown = await browser.$(byTestId("restore-outcome"));
  await shown.waitForDisplayed();
  const text = await shown.getText();
  assert.match(text, new RegExp(`Restored .*${copy.replace(/\./g, "\\.")}`));
  assert.match(text, /master key kept with it was restored too/);
  await shown.scrollIntoView({ block: "center" });
  await shot(browser, "backups-restored");
  await click("restore-outcome-dismiss");
  await browser.waitUntil(async () => !(await browser.$(byTestId("restore-outcome")).isExisting()), { timeout: 30_000 });
});
