// An upgrade in the real window (issue "Safe by default", item 6): a store
// from the first release's schema (migration 0001 alone, with a provider,
// a model and an agent in it) is opened by the app and by `colmena serve`
// at the same moment. Both come up, one of them migrates under the write
// lock, the rows are intact in the window, and a backup of the old store
// lies in `backups/`.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { CLI, byTestId, clickTestId, completeFirstRun, launchApp, repo, shot, startDriver, stopChild } from "./harness.mjs";

const FIRST_RELEASE = join(repo, "crates/colmena-core/src/store/migrations/0001_foundation.sql");

/** Writes the first release's store, as that release left it, with Python's
 * sqlite3 (the same rows as crates/colmena-server/tests/store_upgrade.rs). */
function firstReleaseStore(dataDir) {
  const script = `
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.executescript("BEGIN;" + open(sys.argv[2]).read() + """
INSERT INTO providers (id, name, kind, base_url, enabled, created_at, updated_at)
  VALUES ('fixture-local', 'Fixture Local', 'openai_compatible', 'http://127.0.0.1:9/v1', 1,
          '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z');
INSERT INTO models (id, provider_id, name, created_at, updated_at)
  VALUES ('fixture-local/m1', 'fixture-local', 'm1', '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z');
INSERT INTO agents (id, name, system_prompt, model_id, created_at, updated_at)
  VALUES ('fixture-agent', 'Fixture Agent', 'Be brief.', 'fixture-local/m1',
          '2026-11-30T10:00:00Z', '2026-11-30T10:00:00Z');
PRAGMA user_version = 1;
COMMIT;""")
conn.close()
`;
  execFileSync("python3", ["-c", script, join(dataDir, "colmena.db"), FIRST_RELEASE]);
}

let driver;
let browser;
let serve;

before(async () => {
  driver = await startDriver({ portOffset: 6 });
  firstReleaseStore(driver.dataDir);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  if (serve) await stopChild(serve);
  await driver?.stop();
});

test("the app and colmena serve started together on a first-release store both come up", async () => {
  serve = spawn(CLI, ["--data-dir", driver.dataDir, "--json", "serve", "--bind", "127.0.0.1:0", "--no-scheduler"], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const listening = new Promise((resolve, reject) => {
    let errors = "";
    serve.stderr.on("data", (chunk) => (errors += String(chunk)));
    serve.stdout.on("data", (chunk) => {
      const match = /"listening":"(http:\/\/[\d.:]+)"/.exec(String(chunk));
      if (match) resolve(match[1]);
    });
    serve.on("exit", (code) => reject(new Error(`colmena serve exited (${code}): ${errors}`)));
  });
  // The same moment: the app starts while serve is migrating, or the other way round.
  const [url, app] = await Promise.all([listening, launchApp()]);
  browser = app;
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);

  await completeFirstRun(browser, []);
  await clickTestId(browser, "nav-settings");
  const provider = await browser.$(byTestId("provider-fixture-local"));
  await provider.waitForDisplayed({ timeout: 15_000 });
  assert.match(await provider.getText(), /Fixture Local/);
  await browser.$(byTestId("model-fixture-local/m1")).waitForDisplayed();
  await shot(browser, "upgraded-store");

  const backups = readdirSync(join(driver.dataDir, "backups"));
  const taken = backups.filter((name) => name.startsWith("pre-migration-") && name.endsWith("-v1.db"));
  assert.equal(taken.length, 1, `one backup of the old store, taken once: ${backups}`);
});
