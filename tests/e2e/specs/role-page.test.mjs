// A role's page in the real window (issue 15): the role is made in the
// dialog with standing instructions and a skill of its own, mail wakes it
// (the scripted provider plays its agent, which saves a memory), and the
// role's page shows the wake-up in its history and the memory in its own
// Memories tab and in the Memory view filtered by the role — in English and
// Spanish.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  byTestId,
  chooseOption,
  clickTestId,
  colmenaCli,
  completeFirstRun,
  fillField,
  launchApp,
  shot,
  startDriver,
  startScriptedProvider,
  waitGone,
  languageShown,
} from "./harness.mjs";

const PROMPT = "You are Ambrosio, the coordinator.";

let driver;
let browser;
let provider;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

before(async () => {
  driver = await startDriver({ portOffset: 18 });
  provider = await startScriptedProvider(
    driver.dataDir,
    {
      rules: [
        {
          when: { systemContains: "Always sign as the coordinator", toolResults: 0 },
          reply: {
            type: "toolCalls",
            text: "",
            calls: [{ name: "memory_write", arguments: JSON.stringify({ title: "cliente-aurin", content: "Aurin quiere los informes en PDF" }) }],
          },
          repeat: true,
        },
        { when: { systemContains: PROMPT, toolResults: 1 }, reply: { type: "text", text: "Noted Aurin's preference in my memory." }, repeat: true },
      ],
    },
    "role-page-script",
  );
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  colmena("agent", "add", "Ambrosio", "--system-prompt", PROMPT, "--tools", "memory_write");
  colmena("skill", "create", "informes-pdf", "--description", "How reports are delivered", "--body", "Reports go out as PDF.");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await provider?.stop();
  await driver?.stop();
});

test("a role made with instructions and a skill wakes, and its page shows the wake-up and its memory", async () => {
  await click("nav-inbox");
  await click("new-role");
  await fillField(browser, '[data-testid="role-name"]', "Coordinador");
  await chooseOption(browser, "role-agent", "ambrosio");
  await fillField(browser, '[data-testid="role-instructions"]', "Always sign as the coordinator.");
  await click("role-skill-informes-pdf");
  await (await el("role-skills")).scrollIntoView();
  await shot(browser, "role-dialog-instructions-en");
  await click("role-save");
  await click("token-done");
  await waitGone(browser, byTestId("role-dialog"), 10_000);
  const role = JSON.parse(colmena("--json", "author", "show", "coordinador"));
  assert.equal(role.instructions, "Always sign as the coordinator.");
  assert.deepEqual(role.skills, ["informes-pdf"]);

  colmena("message", "send", "coordinador", "Aurin wants the reports as PDF.");
  await click("author-coordinador");
  await click("wake-now");
  await browser.waitUntil(
    async () => {
      const [entry] = JSON.parse(colmena("--json", "author", "history", "coordinador"));
      return entry?.finishedAt != null;
    },
    { timeout: 30_000, timeoutMsg: "the wake-up was not recorded" },
  );
  // The instructions and the role's skill reached the model.
  const [entry] = JSON.parse(colmena("--json", "author", "history", "coordinador"));
  assert.equal(entry.error, null);
  assert.equal(entry.summary, "Noted Aurin's preference in my memory.");

  await click("tab-wakes");
  const wake = await el(`wake-${entry.id}`);
  await wake.waitForDisplayed({ timeout: 10_000 });
  assert.match(await wake.getText(), /Noted Aurin's preference/);
  assert.match(await wake.getText(), /handled 1 message/);
  await shot(browser, "role-history-en");

  await click("tab-memories");
  const memory = await el("role-memory-cliente-aurin");
  await memory.waitForDisplayed({ timeout: 10_000 });
  // textContent: WebKitWebDriver leaves line-clamped text out of getText.
  assert.match(await memory.getProperty("textContent"), /Aurin quiere los informes en PDF/);
  await shot(browser, "role-memories-en");

  // Not the owner's: the Memory view shows it only filtered by the role.
  await click("nav-memory");
  assert.equal(await el("memory-cliente-aurin").isExisting(), false, "the role's memory is among the owner's");
  await chooseOption(browser, "memory-whose", "coordinador");
  await (await el("memory-cliente-aurin")).waitForDisplayed({ timeout: 10_000 });
  await shot(browser, "role-memory-view-en");
});

test("the role's page reads in Spanish", async () => {
  await click("quick-lang-es");
  await languageShown(browser, "es");
  await shot(browser, "role-memory-view-es");
  await click("nav-inbox");
  await click("author-coordinador");
  await click("tab-wakes");
  const history = await el("wake-history");
  await history.waitForDisplayed({ timeout: 10_000 });
  assert.match(await history.getText(), /atendió 1 mensaje/);
  await shot(browser, "role-history-es");
  await click("tab-memories");
  await (await el("role-memory-cliente-aurin")).waitForDisplayed({ timeout: 10_000 });
  assert.match(await (await el("role-memories")).getText(), /Abrir en Memoria/);
  await shot(browser, "role-memories-es");
});
