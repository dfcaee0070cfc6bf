// Chat on a par with Claude Desktop and Jan (issue 37, item 5), in the real
// window against the scripted provider: a reopened conversation still shows
// each answer's tools and tokens; the filter box finds a conversation by
// what was said in it; editing a message sends it in a new branch (the
// original kept, one click away) and so does asking again; a conversation
// answers with the model chosen for it (checked on the wire); "New chat ▾"
// chooses the agent; the conversation exports as Markdown (its command-line
// door: the save dialog is the desktop's own). Both languages and themes.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, chooseOption, clickTestId, colmenaCli, completeFirstRun, fillField, languageShown, launchApp, newChatWith, shot, startDriver, startScriptedProvider } from "./harness.mjs";

const KEEPER = "You keep notes on bees.";

function script() {
  return {
    rules: [
      { when: { systemContains: KEEPER, model: "gpt-big" }, reply: { type: "text", text: "Answered by the big model." }, repeat: true },
      {
        when: { systemContains: KEEPER, toolResults: 0, lastUserContains: "bees" },
        reply: { type: "toolCalls", text: "", calls: [{ name: "memory_search", arguments: JSON.stringify({ query: "bees" }) }] },
        repeat: true,
      },
      { when: { systemContains: KEEPER, toolResults: 1 }, reply: { type: "text", text: "Nothing about bees yet." }, repeat: true },
      { when: { systemContains: KEEPER }, reply: { type: "text", text: "Wasps are not bees." }, repeat: true },
      { when: {}, reply: { type: "text", text: "Hello from the worker." }, repeat: true },
    ],
  };
}

let driver;
let browser;
let provider;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

before(async () => {
  driver = await startDriver({ portOffset: 25 });
  provider = await startScriptedProvider(driver.dataDir, script(), "chat-script");
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "add", "scripted", "gpt-big");
  colmena("model", "default", "scripted/gpt-test");
  colmena("agent", "add", "Apicultora", "--system-prompt", KEEPER, "--tools", "memory_search");
  colmena("agent", "add", "Worker", "--system-prompt", "You work.");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

async function setLook(lang, theme) {
  await click(`quick-lang-${lang}`);
  await languageShown(browser, lang);
  const current = await browser.execute(() => document.documentElement.dataset.theme);
  if (current !== theme) await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === theme);
}

/** The open conversation's messages, as `role: text`. */
async function said() {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="messages"] > [data-message-id]')].map((m) => {
      const role = m.dataset.testid === "message-user" ? "user" : "agent";
      const body = m.querySelector(".markdown, p");
      return `${role}: ${body ? body.textContent.trim() : ""}`;
    }),
  );
}

async function send(text) {
  await fillField(browser, byTestId("chat-input"), text);
  await click("send-chat");
}

async function waitSaid(expected, message) {
  await browser.waitUntil(async () => JSON.stringify(await said()) === JSON.stringify(expected), {
    timeout: 30_000,
    timeoutMsg: `${message}: ${JSON.stringify(expected)}`,
  });
}

/** The current conversation's id, from the route. */
async function openId() {
  return browser.execute(() => decodeURIComponent(window.location.hash.replace(/^#\/chat\//, "")));
}

let original;

test("a reopened conversation still shows each answer's tools and tokens", async () => {
  await click("nav-chat");
  await newChatWith(browser, "apicultora");
  original = await openId();
  await send("What do we know about bees?");
  await waitSaid(["user: What do we know about bees?", "agent: Nothing about bees yet."], "the first answer never came");
  await send("And wasps?");
  await waitSaid(
    ["user: What do we know about bees?", "agent: Nothing about bees yet.", "user: And wasps?", "agent: Wasps are not bees."],
    "the second answer never came",
  );

  // Away and back: a fresh read of the conversation, as after a restart.
  await click("nav-activity");
  await click("nav-chat");
  await browser.waitUntil(async () => (await said()).length === 4, { timeout: 15_000 });
  const tools = await browser.$$(`${byTestId("message-tools")} ${byTestId("tool-entry")}`);
  assert.equal(tools.length, 1, "the first answer lists the one tool its run called");
  assert.equal(await tools[0].getAttribute("data-tool"), "memory_search");
  assert.equal(await tools[0].getAttribute("data-state"), "ok");
  assert.match(await tools[0].getText(), /Search memories/, "the tool by its title");
  const usage = await browser.$$(byTestId("chat-usage"));
  assert.equal(usage.length, 2, "each answer says its tokens");
  assert.match(await usage[0].getText(), /tokens in · \d+ out/);
  await shot(browser, "chat-reopened-en-light");
});

test("the filter box finds a conversation by what was said in it", async () => {
  await newChatWith(browser, "worker");
  await send("Hello");
  await waitSaid(["user: Hello", "agent: Hello from the worker."], "the worker never answered");
  await fillField(browser, byTestId("conversations-filter"), "wasps");
  await browser.waitUntil(async () => /^1 of 2$/.test(await el("conversations-filter-count").then((e) => e.getText())), {
    timeout: 10_000,
    timeoutMsg: "the search did not narrow the list to the conversation about wasps",
  });
  const hitText = () => browser.execute(() => document.querySelector('[data-testid="conversation-hit"]')?.textContent ?? "");
  await browser.waitUntil(async () => /wasps/i.test(await hitText()), {
    timeout: 10_000,
    timeoutMsg: "the line that matched is not shown",
  });
  await shot(browser, "chat-search-en-light");
  await browser.$(byTestId("conversations-filter")).then((e) => e.click());
  await browser.keys("Escape");
  await browser.waitUntil(async () => (await browser.$$('.item-list [data-testid^="conversation-c-"]')).length === 2, {
    timeout: 10_000,
    timeoutMsg: "Escape did not clear the search",
  });
});

test("editing a message sends it in a new branch; the original is kept, and asking again branches too", async () => {
  await browser.execute((id) => {
    window.location.hash = `#/chat/${encodeURIComponent(id)}`;
  }, original);
  await browser.waitUntil(async () => (await said()).length === 4, { timeout: 15_000 });
  const edits = await browser.$$(byTestId("message-edit"));
  await edits[1].click();
  await fillField(browser, byTestId("message-edit-input"), "And hornets?");
  await shot(browser, "chat-editing-en-light");
  await click("message-edit-send");
  await waitSaid(
    ["user: What do we know about bees?", "agent: Nothing about bees yet.", "user: And hornets?", "agent: Wasps are not bees."],
    "the edit was not answered in a branch",
  );
  const branch = await openId();
  assert.notEqual(branch, original, "the edit went to a new conversation");
  await el("chat-forked-from").then((e) => e.waitForDisplayed());
  assert.match(await el("chat-forked-from").then((e) => e.getText()), /Branched from “What do we know about bees\?”/);
  // The copied answer keeps its tools.
  assert.equal((await browser.$$(`${byTestId("message-tools")} ${byTestId("tool-entry")}`)).length, 1);
  await shot(browser, "chat-branch-en-light");

  // The original, one click away, is as it was.
  await click("chat-forked-from");
  await waitSaid(
    ["user: What do we know about bees?", "agent: Nothing about bees yet.", "user: And wasps?", "agent: Wasps are not bees."],
    "the original changed",
  );

  // Asking again branches before the question, and answers it anew.
  const retries = await browser.$$(byTestId("message-retry"));
  await retries[1].click();
  await browser.waitUntil(async () => ![original, branch].includes(await openId()), { timeout: 15_000, timeoutMsg: "asking again opened no branch" });
  await waitSaid(
    ["user: What do we know about bees?", "agent: Nothing about bees yet.", "user: And wasps?", "agent: Wasps are not bees."],
    "the question was not asked again in its branch",
  );
  const list = JSON.parse(colmena("--json", "conversation", "list"));
  assert.equal(list.filter((c) => c.forkedFrom === original).length, 2, "two branches of the original");
});

test("in Spanish and dark: a conversation answers with the model chosen for it, and exports as Markdown", async () => {
  await setLook("es", "dark");
  const before = (await (await fetch(`${provider.url}/scripted/requests`)).json()).requests.length;
  await chooseOption(browser, "chat-model", "scripted/gpt-big");
  const id = await openId();
  await browser.waitUntil(() => JSON.parse(colmena("--json", "conversation", "list")).find((c) => c.id === id)?.modelId === "scripted/gpt-big", {
    timeout: 10_000,
    timeoutMsg: "the choice did not reach the store",
  });
  await send("Which model answers?");
  await browser.waitUntil(async () => (await said()).at(-1) === "agent: Answered by the big model.", { timeout: 30_000 });
  const requests = (await (await fetch(`${provider.url}/scripted/requests`)).json()).requests.slice(before);
  assert.deepEqual(
    requests.map((r) => r.model),
    ["gpt-big"],
    "this conversation's turn went to the model chosen for it",
  );
  const own = await browser.execute(() => document.querySelector('[data-testid="chat-model"] option[value=""]').textContent);
  assert.equal(own, "Modelo del agente — scripted/gpt-test");
  await shot(browser, "chat-model-es-dark");

  const markdown = colmena("conversation", "export", id);
  assert.match(markdown, /^# What do we know about bees\?\n/);
  assert.match(markdown, /## You · /);
  assert.match(markdown, /## Apicultora · [^\n]*\n\n_Used `memory_search`_\n\nNothing about bees yet\./);
  assert.match(markdown, /Answered by the big model\./);

  // New chat ▾ names each agent.
  await click("new-chat-menu");
  await el("new-chat-with-worker").then((e) => e.waitForDisplayed());
  assert.match(await el("new-chat-with-worker").then((e) => e.getText()), /Nuevo chat con Worker/);
  await shot(browser, "chat-new-menu-es-dark");
  await browser.keys("Escape");
  await setLook("en", "light");
});
