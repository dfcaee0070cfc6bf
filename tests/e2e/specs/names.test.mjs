// Names, not ids, in the real window (issue 12, item 4): a tool call that
// waits for the person says which agent asks and which run it belongs to —
// "Run of Ingeniera Jefa, started 14:05" — with the run's id behind "Copy
// id", never the agent's slug; the Console tells what happened to a canvas
// in sentences grouped by day ("You generated round 1 of «TL;DR brief» in
// «Morning brief»"), not `session.generate_variant`, each line opening its
// canvas, and counts "1 export"
// — in both languages and both themes; the Inbox calls the person "You"
// (not `owner`) and names the agent that plays a role.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";

import { CLI, byTestId, clickTestId, colmenaCli, completeFirstRun, launchApp, shot, startDriver, startScriptedProvider } from "./harness.mjs";

const ENGINEER = "You run commands on this computer.";

const SCRIPT = {
  rules: [
    {
      when: { systemContains: ENGINEER, toolResults: 0 },
      reply: {
        type: "toolCalls",
        text: "I will run it.",
        calls: [{ name: "cli_exec", arguments: JSON.stringify({ command: "sh", args: ["-c", "echo hola"] }) }],
      },
      repeat: true,
    },
    { when: { systemContains: ENGINEER, toolResults: 1 }, reply: { type: "text", text: "The person said no." }, repeat: true },
    { when: { lastUserContains: "abejas" }, reply: { type: "text", text: "Las abejas hacen miel." }, repeat: true },
    { when: { systemContains: "You research." }, reply: { type: "text", text: "Bees dance to talk." }, repeat: true },
    { when: { systemContains: "You write." }, reply: { type: "text", text: "A tweet about bees." }, repeat: true },
  ],
};

let driver;
let browser;
let provider;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

before(async () => {
  driver = await startDriver({ portOffset: 10 });
  provider = await startScriptedProvider(driver.dataDir, SCRIPT, "names-script");
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  browser = await launchApp();
  await completeFirstRun(browser, []);
  colmena("tool", "toggle", "cli_exec", "--on");
  colmena("agent", "add", "Ingeniera Jefa", "--system-prompt", ENGINEER, "--tools", "cli_exec");
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

async function setLook(lang, theme) {
  await click(`quick-lang-${lang}`);
  const current = await browser.execute(() => document.documentElement.dataset.theme);
  if (current !== theme) await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === theme);
}

test("a waiting tool call names its agent and its run, with the run's id behind Copy id", async () => {
  const run = spawn(CLI, ["--data-dir", driver.dataDir, "agent", "run", "ingeniera_jefa", "Run the command"], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const ended = new Promise((resolve) => run.on("exit", resolve));

  await click("nav-activity");
  const stack = await el("pending-approvals");
  await stack.waitForDisplayed({ timeout: 20_000 });
  const card = await stack.$(byTestId("approval-card"));
  const origin = await card.$(byTestId("approval-origin"));
  await origin.waitForDisplayed({ timeout: 10_000 });
  const text = await card.getText();
  assert.match(text, /Ingeniera Jefa/);
  assert.doesNotMatch(text, /ingeniera_jefa/, "the agent's slug is not its name");
  assert.match(await origin.getText(), /Run of Ingeniera Jefa, started \d/);

  const runs = JSON.parse(colmena("--json", "runs", "list", "--target", "ingeniera_jefa"));
  const copy = await origin.$(byTestId("copy-run-id"));
  assert.equal(await copy.getAttribute("title"), runs[0].id, "the id is in the tooltip");
  assert.doesNotMatch(text, new RegExp(runs[0].id.slice(-8)), "no id fragment as a label");
  await shot(browser, "names-approval-origin");

  await setLook("es", "dark");
  await browser.waitUntil(async () => /Ejecución de Ingeniera Jefa \(inicio: /.test(await origin.getText()), {
    timeout: 5_000,
    timeoutMsg: "the run's origin is not in Spanish",
  });
  await shot(browser, "names-approval-origin-es-dark");
  await setLook("en", "light");

  await stack.$(byTestId("approval-deny")).click();
  assert.equal(await ended, 0);
});

test("Activity's canvas log tells what happened in sentences grouped by day, and counts one export", async () => {
  const canvas = JSON.parse(colmena("--json", "canvas", "create", "Morning brief"));
  const variant = JSON.parse(colmena("--json", "canvas", "add-variant", canvas.id, "--preset", "tldr-brief", "--prompt", "Sobre abejas"));
  colmena("canvas", "generate", variant.id);
  colmena("canvas", "export", canvas.id, variant.id);

  await click("nav-canvas");
  await click("nav-activity");
  const feed = await el("now-feed");
  await feed.waitForDisplayed({ timeout: 10_000 });
  await browser.waitUntil(async () => /You generated round 1 of «TL;DR brief» in «Morning brief»/.test(await feed.getText()), {
    timeout: 10_000,
    timeoutMsg: "no sentence for the generated round",
  });
  const text = await feed.getText();
  assert.match(text, /^today/i, "grouped under a day heading");
  assert.match(text, /You created «Morning brief»/);
  assert.match(text, /You exported a variant of «Morning brief» as markdown/);
  assert.match(text, /command line/, "the door the person used is said");
  assert.doesNotMatch(text, /session\./, "no dotted operation names");
  const line = await browser.$(`${byTestId("activity-line")}[data-tool="session.generate_variant"]`);
  assert.match(await line.getAttribute("title"), /^session\.generate_variant · tldr-brief round 1/, "the raw line stays in the tooltip");

  const kpi = await el("kpi-exports");
  assert.match(await kpi.getText(), /^1\s*export in the last 7 days$/);
  await shot(browser, "names-console");

  await setLook("es", "dark");
  await browser.waitUntil(async () => /Generaste la ronda 1 de «Resumen TL;DR» en «Morning brief»/.test(await feed.getText()), {
    timeout: 5_000,
    timeoutMsg: "the sentences are not in Spanish",
  });
  assert.match(await feed.getText(), /^hoy/i);
  assert.match(await kpi.getText(), /exportación en los últimos 7 días/);
  await shot(browser, "names-console-es-dark");
  await setLook("en", "light");

  // A line opens its canvas.
  await browser.$(`${byTestId("activity-line")}[data-tool="session.create"] ${byTestId("activity-sentence")}`).click();
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)) === `#/canvas/${canvas.id}`, {
    timeout: 5_000,
    timeoutMsg: "the line did not open its canvas",
  });
});

test("a role in the Inbox shows the agent that plays it by name, its id behind Copy id", async () => {
  colmena("author", "create", "Guardia", "--agent", "ingeniera_jefa", "--wake-every", "1440");
  await click("nav-inbox");
  await click("author-guardia");
  const agent = await el("role-agent-name");
  await agent.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await agent.getText(), "Ingeniera Jefa");
  assert.equal(await el("copy-author-id").then((e) => e.getAttribute("title")), "guardia");
  assert.doesNotMatch(await el("author-head").then((e) => e.getText()), /ingeniera_jefa/);
  const person = await el("author-owner").then((e) => e.getText());
  assert.match(person, /^You/, "the person is 'You', not the workspace's id");
  assert.doesNotMatch(person, /owner/);
  await shot(browser, "names-inbox-role");
});

test("a swarm's run is titled by the swarm's name and when it started, its id behind Copy id", async () => {
  colmena("agent", "add", "Investigadora Principal", "--system-prompt", "You research.");
  colmena("agent", "add", "Redactora Jefa", "--system-prompt", "You write.");
  colmena("swarm", "create", "Equipo de prensa", "--strategy", "sequential", "--members", "investigadora_principal,redactora_jefa");
  await click("nav-swarms");
  await click("swarm-equipo_de_prensa");
  const input = await browser.$("#swarm-input");
  await input.waitForDisplayed({ timeout: 10_000 });
  await input.setValue("Bees");
  await click("run-swarm");
  await browser.$(`${byTestId("run-panel")}[data-phase="completed"]`).waitForDisplayed({ timeout: 20_000 });
  const title = await el("run-title");
  await browser.waitUntil(async () => /started \d/.test(await title.getText()), { timeout: 5_000, timeoutMsg: "no start time" });
  // textContent: WebKitWebDriver's getText leaves out the ellipsised name.
  assert.match(await title.getProperty("textContent"), /^Equipo de prensastarted \d/);
  const runs = JSON.parse(colmena("--json", "runs", "list", "--target", "equipo_de_prensa"));
  assert.equal(await title.$(byTestId("copy-run-id")).getAttribute("title"), runs[0].id);
  assert.doesNotMatch(await el("run-panel").then((e) => e.getText()), new RegExp(runs[0].id.slice(-8)));
  await shot(browser, "names-swarm-run");
  await setLook("es", "dark");
  await browser.waitUntil(async () => /inicio: \d/.test(await title.getText()), { timeout: 5_000, timeoutMsg: "not in Spanish" });
  await shot(browser, "names-swarm-run-es-dark");
  await setLook("en", "light");
});
