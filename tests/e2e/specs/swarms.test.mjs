// Swarms, runs and chat in the real window, against the scripted provider
// (a real HTTP server speaking the OpenAI streaming format): a hierarchical
// swarm built on the graph and run while it streams; the app SIGKILLed in
// the middle of a run and the run resumed on the next start; a chat with an
// agent; and bad input — a swarm refused on save, a member deleted after,
// a provider that refuses the key, tool arguments that break the schema.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { APP, byTestId, clickTestId, chooseOption, colmenaCli, completeFirstRun, fillField, launchApp, repo, shot, startDriver, startScriptedProvider, waitGone } from "./harness.mjs";


let driver;
let browser;
let provider;

/** The press team's script, streamed slowly enough to watch, plus the
 * agents that show what goes wrong. */
function script() {
  const press = JSON.parse(readFileSync(join(repo, "tests/fixtures/press-swarm.json"), "utf8"));
  for (const rule of press.rules) rule.delayMs = 90;
  press.rules.push(
    { when: { model: "refused" }, reply: { type: "error", status: 401, message: "Incorrect API key provided" }, repeat: true },
    {
      when: { systemContains: "You check things.", toolResults: 0 },
      reply: { type: "toolCalls", text: "", calls: [{ name: "memory_write", arguments: '{"title": 42}' }] },
      repeat: true,
    },
    {
      when: { systemContains: "You check things.", toolResults: 1 },
      reply: { type: "text", text: "I could not save that note: the arguments were wrong." },
      repeat: true,
    },
  );
  return press;
}

const startProvider = (dataDir) => startScriptedProvider(dataDir, script());

const colmena = colmenaCli;

before(async () => {
  driver = await startDriver({ portOffset: 2 });
  provider = await startProvider(driver.dataDir);
  const dir = driver.dataDir;
  colmena(dir, "provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena(dir, "model", "add", "scripted", "gpt-test");
  colmena(dir, "model", "add", "scripted", "refused");
  colmena(dir, "model", "default", "scripted/gpt-test");
  colmena(dir, "agent", "add", "Jefa", "--system-prompt", "You lead the press team.");
  colmena(dir, "agent", "add", "Investigadora", "--system-prompt", "You research.");
  colmena(dir, "agent", "add", "Redactora", "--system-prompt", "You write.");
  colmena(dir, "agent", "add", "Revisora", "--system-prompt", "You check things.", "--tools", "memory_*");
  colmena(dir, "agent", "add", "Rechazada", "--system-prompt", "You are refused.", "--model", "scripted/refused");
  colmena(dir, "agent", "add", "Temporal", "--system-prompt", "You will be deleted.");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  driver?.stop();
  provider?.stop();
});

const el = (id) => browser.$(byTestId(id));

const click = (id) => clickTestId(browser, id);

const typeInto = (selector, text) => fillField(browser, selector, text);

/** Drags a palette agent onto the graph with real pointer events. */
async function dragOntoGraph(agentId, dx, dy) {
  const item = await el(`palette-${agentId}`);
  await item.scrollIntoView({ block: "center" });
  const canvas = await el("swarm-canvas");
  const at = await canvas.getLocation();
  const size = await canvas.getSize();
  await browser
    .action("pointer", { parameters: { pointerType: "mouse" } })
    .move({ origin: item })
    .down()
    .move({ x: Math.round(at.x + size.width / 2 + dx), y: Math.round(at.y + size.height / 2 + dy), duration: 250 })
    .up()
    .perform();
}

const choose = (testId, value) => chooseOption(browser, testId, value);

async function laneStatus(agentId) {
  return (await el(`lane-${agentId}`)).getAttribute("data-status");
}

test("a hierarchical swarm is built on the graph; saving refuses it without an orchestrator", async () => {
  await click("nav-swarms");
  await click("new-swarm");
  await typeInto("#swarm-name", "Prensa");
  await click("strategy-hierarchical");
  await dragOntoGraph("jefa", 0, -120);
  await el("node-jefa").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await click("add-investigadora");
  await click("add-redactora");
  // The first member became the orchestrator; take the crown away and save.
  await click("lead-jefa");
  await click("save-swarm");
  const error = await el("error-members");
  await error.waitForDisplayed({ timeout: 10_000 });
  assert.match(await error.getText(), /orchestrator/i);
  await shot(browser, "swarm-builder-refused");

  await click("lead-jefa");
  await click("save-swarm");
  await el("swarm-prensa").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await el("run-swarm").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  const saved = JSON.parse(colmena(driver.dataDir, "--json", "swarm", "show", "prensa"));
  assert.deepEqual(
    saved.members.map((m) => [m.agentId, m.role]),
    [
      ["jefa", "orchestrator"],
      ["investigadora", "member"],
      ["redactora", "member"],
    ],
  );
  await shot(browser, "swarm-builder");
});

test("the swarm runs with each member's steps streaming live, and ends with the orchestrator's answer", async () => {
  await typeInto("#swarm-input", "Make a tweet about bees");
  await click("run-swarm");
  await browser.waitUntil(async () => (await laneStatus("investigadora")) === "working", {
    timeout: 15_000,
    timeoutMsg: "the researcher never started",
  });
  await shot(browser, "swarm-run-in-progress");
  const phase = await el("run-phase");
  await browser.waitUntil(async () => (await phase.getText()).match(/Completed/), { timeout: 30_000 });
  assert.match(await el("run-output").then((e) => e.getText()), /Bees dance to talk/);
  for (const agent of ["jefa", "investigadora", "redactora"]) assert.equal(await laneStatus(agent), "done", agent);
  const entries = await browser.$$(byTestId("tool-entry"));
  assert.equal(entries.length, 2, "two delegations");
  await shot(browser, "swarm-run-completed");
});

test("killed with SIGKILL in the middle of a run, the app offers the run on its next start and it completes", async () => {
  await typeInto("#swarm-input", "Another tweet, please");
  await click("run-swarm");
  await browser.waitUntil(async () => (await laneStatus("redactora")) === "working", {
    timeout: 20_000,
    timeoutMsg: "the writer never started",
  });
  const pid = execFileSync("pgrep", ["-f", "-n", APP], { encoding: "utf8" }).trim();
  process.kill(Number(pid), "SIGKILL");
  await browser.deleteSession().catch(() => {});

  browser = await launchApp();
  const banner = await el("resume-banner");
  await banner.waitForDisplayed({ timeout: 20_000 });
  assert.match(await banner.getText(), /Another tweet/);
  await shot(browser, "resume-offered");
  await click(await banner.$('[data-testid^="resume-"]').then((b) => b.getAttribute("data-testid")));
  const dialog = await el("resume-dialog");
  await dialog.waitForDisplayed();
  const phase = await dialog.$(byTestId("run-phase"));
  await browser.waitUntil(async () => (await phase.getText()).match(/Completed/), { timeout: 30_000 });
  assert.match(await dialog.$(byTestId("run-output")).then((e) => e.getText()), /Bees dance to talk/);
  await shot(browser, "resume-completed");
  const runs = JSON.parse(colmena(driver.dataDir, "--json", "runs", "list", "--target", "prensa"));
  assert.equal(runs[0].status, "completed");
  assert.equal(runs[0].input, "Another tweet, please");
  await browser.keys("Escape");
});

test("a chat with one agent streams its answer and keeps the conversation", async () => {
  await click("nav-chat");
  await choose("chat-agent", "investigadora");
  await click("new-chat");
  await typeInto('[data-testid="chat-input"]', "Tell me about bees");
  await click("send-chat");
  const answer = await browser.$('[data-testid="message-assistant"]');
  await answer.waitForDisplayed({ timeout: 20_000 });
  assert.match(await answer.getText(), /Bees dance to tell where flowers are/);
  assert.match(await browser.$('[data-testid="message-user"]').then((e) => e.getText()), /Tell me about bees/);
  await shot(browser, "chat");
});

test("bad input: tool arguments that break the schema, a provider that refuses the key, a deleted member", async () => {
  // The tool call fails on its schema; the agent goes on and answers.
  await choose("chat-agent", "revisora");
  await click("new-chat");
  await typeInto('[data-testid="chat-input"]', "Save a note");
  await click("send-chat");
  const answer = await browser.$('[data-testid="message-assistant"]');
  await answer.waitForDisplayed({ timeout: 20_000 });
  assert.match(await answer.getText(), /could not save that note/);
  const detail = JSON.parse(colmena(driver.dataDir, "--json", "runs", "list", "--target", "revisora"));
  const steps = JSON.parse(colmena(driver.dataDir, "--json", "runs", "show", detail[0].id)).steps;
  const result = steps.find((s) => s.kind === "tool_result");
  assert.equal(result.content.ok, false);
  assert.match(result.content.output, /break its schema/);

  // The provider refuses the key: a clear error, in the chat and the record.
  await choose("chat-agent", "rechazada");
  await click("new-chat");
  await typeInto('[data-testid="chat-input"]', "Hello?");
  await click("send-chat");
  const error = await el("chat-error");
  await error.waitForDisplayed({ timeout: 20_000 });
  assert.match(await error.getText(), /refused the API key/);
  await shot(browser, "chat-key-refused");
  const refused = JSON.parse(colmena(driver.dataDir, "--json", "runs", "list", "--target", "rechazada"));
  assert.equal(refused[0].status, "failed");
  assert.equal(refused[0].error.details.reason, "auth_refused");

  // A member deleted after the swarm was saved: the graph marks it and the run says which.
  colmena(driver.dataDir, "swarm", "create", "Con baja", "--strategy", "sequential", "--members", "investigadora,temporal");
  colmena(driver.dataDir, "agent", "remove", "temporal");
  await click("nav-swarms");
  await click("swarm-con_baja");
  const node = await el("node-temporal");
  await node.waitForDisplayed({ timeout: 10_000 });
  // The CLI wrote from another process; the open window notices on its own.
  await browser.waitUntil(async () => /is-missing/.test(await node.getAttribute("class")), {
    timeout: 10_000,
    timeoutMsg: "the graph never marked the deleted member",
  });
  await typeInto("#swarm-input", "Go");
  await click("run-swarm");
  const runError = await el("run-error");
  await runError.waitForDisplayed({ timeout: 20_000 });
  assert.match(await runError.getText(), /temporal/);
  await shot(browser, "swarm-deleted-member");
});

test("saving a swarm of switched-off specialists reports what they need, and activating switches it on", async () => {
  await click("new-swarm");
  await typeInto("#swarm-name", "Investigación");
  await click("add-web_researcher");
  await click("add-software_engineer");
  await click("save-swarm");
  const pending = await el("pending-activation");
  await pending.waitForDisplayed({ timeout: 10_000 });
  assert.match(await pending.getText(), /web_researcher/);
  assert.match(await pending.getText(), /cli_exec/);
  await pending.scrollIntoView({ block: "center" });
  await shot(browser, "swarm-pending-activation");
  await click("activate-members");
  await waitGone(browser, byTestId("pending-activation"));
  const status = JSON.parse(colmena(driver.dataDir, "--json", "setup", "status"));
  const installed = status.personas.filter((p) => p.enabled).map((p) => p.id);
  assert.deepEqual(installed.sort(), ["software_engineer", "web_researcher"]);
});
