// Swarms, runs and chat in the real window, against the scripted provider
// (a real HTTP server speaking the OpenAI streaming format): a hierarchical
// swarm built on the graph — which cannot be saved without an orchestrator
// until its one-click fix — and run from its Run tab while its graph lights
// the member at work; the app SIGKILLed in the middle of a run and the run
// resumed on the next start; a chat with an agent; and bad input — a member
// deleted after the swarm was saved, a provider that refuses the key, tool
// arguments that break the schema.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, chooseOption, colmenaCli, completeFirstRun, fillField, killApp, launchApp, newChatWith, repo, shot, startDriver, startScriptedProvider, waitGone, languageShown } from "./harness.mjs";


let driver;
let browser;
let provider;

/** The press team's script, streamed slowly enough to watch, plus the
 * agents that show what goes wrong. */
function script() {
  const press = JSON.parse(readFileSync(join(repo, "tests/fixtures/press-swarm.json"), "utf8"));
  // Slow enough to watch the graph light up member by member.
  for (const rule of press.rules) rule.delayMs = 120;
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
  await driver?.stop();
  await provider?.stop();
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

/** The run graph at one instant: each node's state and the live hand-offs. */
function graphNow() {
  return browser.execute(() => {
    const graph = document.querySelector('[data-testid="run-graph"]');
    if (!graph) return null;
    const nodes = {};
    for (const node of graph.querySelectorAll('[data-testid^="node-"][data-state]')) {
      nodes[node.getAttribute("data-testid").slice(5)] = node.getAttribute("data-state");
    }
    const edgeId = (e) => e.getAttribute("data-id") ?? (e.getAttribute("data-testid") ?? "").replace(/^rf__edge-/, "");
    const active = [...graph.querySelectorAll(".react-flow__edge.edge-run-active")].map(edgeId);
    const dots = graph.querySelectorAll(".edge-dot").length;
    return { nodes, active, dots };
  });
}

/** Words of palette names the layout split across lines ("Investigad / ora"). */
function wordsBrokenInPalette() {
  return browser.execute(() => {
    const broken = [];
    for (const name of document.querySelectorAll(".palette-name")) {
      const text = name.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      let at = 0;
      for (const word of text.textContent.split(" ")) {
        if (word) {
          const range = document.createRange();
          range.setStart(text, at);
          range.setEnd(text, at + word.length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(word);
        }
        at += word.length + 1;
      }
    }
    return broken;
  });
}

async function setTheme(theme) {
  const current = await browser.execute(() => document.documentElement.dataset.theme);
  if (current !== theme) await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === theme);
}

/** Switches the language and waits for the window to show it: the app sets
 * `<html lang>` in the commit that re-renders the views in the language
 * (not when the button is pressed — its catalog loads first). */
async function setLanguage(lang) {
  await click(`quick-lang-${lang}`);
  await languageShown(browser, lang);
}

test("the palette wraps agent names only between words", async () => {
  await click("nav-swarms");
  await click("new-swarm");
  await el("palette-investigadora").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  // Lines are measured in the app's own font.
  await browser.waitUntil(() => browser.execute(() => document.fonts.status === "loaded"), { timeout: 10_000 });
  assert.deepEqual(await wordsBrokenInPalette(), []);
});

test("a hierarchical swarm without an orchestrator cannot be saved; the fix makes it valid and it saves", async () => {
  await typeInto("#swarm-name", "Prensa");
  await click("strategy-hierarchical");
  await dragOntoGraph("jefa", 0, -120);
  await el("node-jefa").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await click("add-investigadora");
  await click("add-redactora");
  // The first member became the orchestrator; take the crown away. The
  // graph glides to a new framing as members come (~200 ms), and a pointer
  // click computed before the glide lands beside the moving button: the
  // button is pressed where it is, as a keyboard user would.
  await el("lead-jefa").then(async (crown) => {
    await crown.waitForDisplayed({ timeout: 10_000 });
    await browser.execute((button) => button.click(), crown);
  });
  const save = await el("save-swarm");
  await browser.waitUntil(async () => !(await save.isEnabled()), { timeout: 10_000, timeoutMsg: "Save stayed on without an orchestrator" });
  assert.match(await el("save-blocked").then((e) => e.getText()), /Can.t save yet: a hierarchical swarm needs an orchestrator\./);
  // The graph says it cannot run: a notice, and only greyed, dashed edges — nothing reaches the result.
  assert.match(await el("graph-not-runnable").then((e) => e.getText()), /Can.t run as drawn: a hierarchical swarm needs an orchestrator\./);
  const edgeKinds = () =>
    browser.execute(() =>
      [...document.querySelectorAll('[data-testid="swarm-canvas"] .react-flow__edge')].map((e) => `${e.getAttribute("data-id") ?? e.getAttribute("data-testid")} ${e.getAttribute("class")}`),
    );
  // React Flow draws an edge once both its nodes are measured.
  await browser.waitUntil(async () => (await edgeKinds()).length === 3, { timeout: 10_000, timeoutMsg: "the graph never drew its edges" });
  const drawn = await edgeKinds();
  await shot(browser, "swarm-builder-not-runnable");
  assert.equal(drawn.filter((e) => /edge-unrunnable/.test(e)).length, 3, drawn.join("\n"));
  assert.equal(drawn.filter((e) => /edge-flow|edge-delegates/.test(e)).length, 0, drawn.join("\n"));
  const fix = await el("fix-swarm");
  assert.equal(await fix.getText(), "Make Jefa orchestrator");
  await setTheme("dark");
  await setLanguage("es");
  assert.equal(await fix.getText(), "Hacer orquestador a Jefa");
  await shot(browser, "swarm-builder-not-runnable-es-dark");
  await setLanguage("en");
  await setTheme("light");

  await click("fix-swarm");
  await browser.waitUntil(async () => save.isEnabled(), { timeout: 10_000, timeoutMsg: "the fix did not make the swarm valid" });
  assert.equal(await el("lead-jefa").then((e) => e.getAttribute("aria-pressed")), "true");
  await waitGone(browser, byTestId("graph-not-runnable"));
  assert.equal((await edgeKinds()).filter((e) => /edge-unrunnable/.test(e)).length, 0);
  await click("save-swarm");
  await el("swarm-prensa").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  const saved = JSON.parse(colmena(driver.dataDir, "--json", "swarm", "show", "prensa"));
  assert.deepEqual(
    saved.members.map((m) => [m.agentId, m.role]),
    [
      ["jefa", "orchestrator"],
      ["investigadora", "member"],
      ["redactora", "member"],
    ],
  );
  // A saved swarm that can run opens on its Run tab: the input and Run come first.
  await el("run-swarm").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  assert.equal(await el("tab-run").then((e) => e.getAttribute("aria-selected")), "true");
  await el("run-idle").then((e) => e.waitForDisplayed());
  await shot(browser, "swarm-run-tab");
});

test("a swarm run lights its graph: the member at work, the hand-off to it, and how each ended", async () => {
  await typeInto("#swarm-input", "Make a tweet about bees");
  await click("run-swarm");
  // One snapshot of the graph, taken while the researcher works.
  let during = null;
  await browser.waitUntil(
    async () => {
      const now = await graphNow();
      if (now?.nodes.investigadora === "working") during = now;
      return during !== null;
    },
    { timeout: 20_000, interval: 50, timeoutMsg: "the graph never lit the researcher" },
  );
  assert.equal(during.nodes.jefa, "waiting", "the orchestrator waits for its delegate");
  assert.equal(during.nodes.redactora, "idle");
  assert.deepEqual(during.active, ["jefa->investigadora"]);
  assert.equal(during.dots, 1, "one hand-off carries the moving dot");
  await shot(browser, "swarm-run-graph-lit");

  const phase = await el("run-phase");
  await browser.waitUntil(async () => (await phase.getText()).match(/Completed/), { timeout: 30_000 });
  assert.match(await el("run-output").then((e) => e.getText()), /Bees dance to talk/);
  for (const agent of ["jefa", "investigadora", "redactora"]) assert.equal(await laneStatus(agent), "done", agent);
  const after = await graphNow();
  assert.deepEqual(after.nodes, { jefa: "done", investigadora: "done", redactora: "done" });
  assert.deepEqual(after.active, []);
  assert.match(await el("run-graph").then((g) => g.$(byTestId("endpoint-output"))).then((o) => o.getAttribute("class")), /is-reached/);
  const entries = await browser.$$(byTestId("tool-entry"));
  assert.equal(entries.length, 2, "two delegations");
  await shot(browser, "swarm-run-completed");
  await setTheme("dark");
  await shot(browser, "swarm-run-completed-dark");
  await setLanguage("es");
  await shot(browser, "swarm-run-completed-es-dark");
  await setLanguage("en");
  await setTheme("light");
});

test("killed with SIGKILL in the middle of a run, the app offers the run on its next start and it completes", async () => {
  await typeInto("#swarm-input", "Another tweet, please");
  await click("run-swarm");
  await setTheme("dark");
  await browser.waitUntil(async () => (await laneStatus("redactora")) === "working", {
    timeout: 20_000,
    timeoutMsg: "the writer never started",
  });
  await shot(browser, "swarm-run-graph-lit-dark");
  // This spec's app, by its workspace, and gone before the next launch: a
  // launch while it still runs hands over to it and exits.
  const killed = await killApp(driver.dataDir);
  assert.equal(killed.length, 1, `one app ran on the workspace: ${killed}`);
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
  await setTheme("light");
});

test("a chat with one agent streams its answer and keeps the conversation", async () => {
  await click("nav-chat");
  await newChatWith(browser, "investigadora");
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
  await newChatWith(browser, "revisora");
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
  await newChatWith(browser, "rechazada");
  await typeInto('[data-testid="chat-input"]', "Hello?");
  await click("send-chat");
  const error = await el("chat-error");
  await error.waitForDisplayed({ timeout: 20_000 });
  assert.match(await error.getText(), /refused the API key/);
  await shot(browser, "chat-key-refused");
  // The error carries its fix: the provider's key field, in one click.
  const keyFix = await error.$(byTestId("remedy-provider-key"));
  await keyFix.waitForDisplayed({ timeout: 10_000 });
  assert.match(await keyFix.getText(), /^Update the .+ key$/);
  await keyFix.click();
  await browser.$("#apiKey").waitForDisplayed({ timeout: 10_000 });
  await browser.waitUntil(async () => (await browser.execute(() => document.activeElement?.id)) === "apiKey", {
    timeout: 10_000,
    timeoutMsg: "the key field does not have the focus",
  });
  await shot(browser, "chat-key-refused-fix");
  await browser.keys("Escape");
  await waitGone(browser, "#apiKey");
  const refused = JSON.parse(colmena(driver.dataDir, "--json", "runs", "list", "--target", "rechazada"));
  assert.equal(refused[0].status, "failed");
  assert.equal(refused[0].error.details.reason, "auth_refused");

  // A member deleted after the swarm was saved: the graph marks it, Run says
  // why it is off, and the fix takes the member out so that it runs.
  colmena(driver.dataDir, "swarm", "create", "Con baja", "--strategy", "sequential", "--members", "investigadora,temporal");
  colmena(driver.dataDir, "agent", "remove", "temporal");
  await click("nav-swarms");
  await click("swarm-con_baja");
  // The CLI wrote from another process; the open window notices on its own.
  await browser.waitUntil(
    async () => {
      const node = await el("node-temporal");
      return (await node.isExisting()) && /is-missing/.test(await node.getAttribute("class"));
    },
    { timeout: 10_000, timeoutMsg: "the graph never marked the deleted member" },
  );
  await click("tab-run");
  const blocked = await el("run-blocked");
  await blocked.waitForDisplayed({ timeout: 10_000 });
  assert.match(await blocked.getText(), /temporal no longer exists/);
  await typeInto("#swarm-input", "Go");
  assert.equal(await el("run-swarm").then((b) => b.isEnabled()), false, "Run is off while a member is missing");
  await shot(browser, "swarm-deleted-member");
  await click("run-blocked-edit");
  const fix = await el("fix-swarm");
  await fix.waitForDisplayed();
  assert.equal(await fix.getText(), "Take the deleted agent out");
  await shot(browser, "swarm-build-missing-member");
  await click("fix-swarm");
  await click("save-swarm");
  await browser.waitUntil(
    async () => JSON.parse(colmena(driver.dataDir, "--json", "swarm", "show", "con_baja")).members.length === 1,
    { timeout: 10_000, timeoutMsg: "the fixed swarm was not saved" },
  );
  await click("tab-run");
  await waitGone(browser, byTestId("run-blocked"));
  await typeInto("#swarm-input", "Go");
  await click("run-swarm");
  const phase = await el("run-phase");
  await browser.waitUntil(async () => (await phase.getText()).match(/Completed/), { timeout: 30_000 });
  assert.match(await el("run-output").then((e) => e.getText()), /Bees dance/);
});

test("saving a swarm of switched-off specialists reports what they need, and activating switches it on", async () => {
  await click("new-swarm");
  await typeInto("#swarm-name", "Investigación");
  await click("add-web_researcher");
  await click("add-software_engineer");
  await click("save-swarm");
  const pending = await el("pending-activation");
  await pending.waitForDisplayed({ timeout: 10_000 });
  assert.match(await pending.getText(), /Specialists: .*Web researcher/);
  assert.match(await pending.getText(), /Run a command/);
  await pending.scrollIntoView({ block: "center" });
  await shot(browser, "swarm-pending-activation");
  await click("activate-members");
  await waitGone(browser, byTestId("pending-activation"));
  const status = JSON.parse(colmena(driver.dataDir, "--json", "setup", "status"));
  const installed = status.personas.filter((p) => p.enabled).map((p) => p.id);
  assert.deepEqual(installed.sort(), ["software_engineer", "web_researcher"]);
});

test("a swarm's result leads somewhere: on in a chat, and into a canvas as an item", async () => {
  // From Activity, the latest swarm run opens with its result.
  const openLatestSwarmRun = async () => {
    await click("nav-activity");
    const row = await browser.$(`${byTestId("activity-entry")}[data-kind="swarm"] ${byTestId("activity-open")}`);
    await row.waitForDisplayed({ timeout: 15_000 });
    await row.click();
    const actions = await el("result-actions");
    await actions.waitForDisplayed({ timeout: 15_000 });
    return actions;
  };
  const actions = await openLatestSwarmRun();
  assert.match(await actions.getText(), /Copy.*Export.*Send to canvas.*Continue in chat/s);
  await shot(browser, "result-actions");

  // Continue in chat: the question and the swarm's answer open a conversation.
  await click("result-to-chat");
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)).startsWith("#/chat/"), {
    timeout: 15_000,
    timeoutMsg: "Continue in chat did not open a conversation",
  });
  const answer = await browser.$(byTestId("message-assistant"));
  await answer.waitForDisplayed({ timeout: 15_000 });
  assert.match(await answer.getText(), /Bees dance/);
  await shot(browser, "result-continued-in-chat");

  // Send to canvas: a new canvas holds the result as an item.
  await openLatestSwarmRun();
  await click("result-to-canvas");
  await el("send-to-canvas").then((d) => d.waitForDisplayed({ timeout: 10_000 }));
  await (await el("send-canvas")).selectByAttribute("value", "");
  await click("send-canvas-go");
  await browser.waitUntil(async () => (await browser.execute(() => window.location.hash)).startsWith("#/canvas/"), {
    timeout: 15_000,
    timeoutMsg: "Send to canvas did not open the canvas",
  });
  const canvasId = (await browser.execute(() => window.location.hash)).split("/")[2];
  const shown = JSON.parse(colmena(driver.dataDir, "--json", "canvas", "show", canvasId));
  assert.equal(shown.items.length, 1);
  assert.match(shown.items[0].snippet, /Bees dance/);
  await shot(browser, "result-sent-to-canvas");
});
