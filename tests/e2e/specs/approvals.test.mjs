// The permission gate in the real window (issue "Safe by default"): an
// agent with `cli_exec` asks to run a command; the approval card shows the
// call with its arguments; deny → the run goes on with the denial and the
// command never runs; allow → the command runs (in the sandbox) and its
// output appears. A run started from the command line, which no view shows,
// asks through the app-wide stack, and the window's answer reaches it. The
// rules are set in the catalog (Run → Allow: no question), and a role's
// wake-ups get their own grant in the Inbox.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import {
  CLI,
  byTestId,
  chooseOption,
  clickTestId,
  colmenaCli,
  completeFirstRun,
  fillField,
  launchApp,
  newChatWith,
  shot,
  startDriver,
  startScriptedProvider,
} from "./harness.mjs";

const ENGINEER = "You run commands on this computer.";

/** Each prompt names a marker file: the command would create it. */
function script() {
  const rules = [];
  for (const [word, answer] of [
    ["uno", "I was not allowed to run it, so the file was not made."],
    ["dos", "Done: the command ran."],
    ["tres", "The person said no from the app."],
    ["cuatro", "Ran it without asking, as allowed."],
    ["cinco", "You said no to the hidden part."],
  ]) {
    // "cinco" hides its second half behind 15,000 spaces and a bidi
    // override: the card must show both (security review finding 9).
    const line =
      word === "cinco"
        ? `echo updating docs${" ".repeat(15_000)}; touch made-cinco.txt # \u202Etxt.exe`
        : `echo hola-${word} && touch made-${word}.txt`;
    rules.push(
      {
        when: { systemContains: ENGINEER, lastUserContains: word, toolResults: 0 },
        reply: {
          type: "toolCalls",
          text: "I will run it.",
          calls: [{ name: "cli_exec", arguments: JSON.stringify({ command: "sh", args: ["-c", line] }) }],
        },
        repeat: true,
      },
      { when: { systemContains: ENGINEER, lastUserContains: word, toolResults: 1 }, reply: { type: "text", text: answer }, repeat: true },
    );
  }
  return { rules };
}

let driver;
let browser;
let provider;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const workspace = () => join(driver.dataDir, "workspaces", "ingeniera");

before(async () => {
  driver = await startDriver({ portOffset: 5 });
  provider = await startScriptedProvider(driver.dataDir, script(), "approvals-script");
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  browser = await launchApp();
  await completeFirstRun(browser, []);
  colmena("tool", "toggle", "cli_exec", "--on");
  colmena("agent", "add", "Ingeniera", "--system-prompt", ENGINEER, "--tools", "cli_exec");
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

/** Opens a new chat with the engineer and sends `text`. */
async function ask(text) {
  await click("nav-chat");
  await newChatWith(browser, "ingeniera");
  await fillField(browser, '[data-testid="chat-input"]', text);
  await click("send-chat");
}

/** The card asking for `cli_exec`, once shown. */
async function approvalCard() {
  const card = await browser.$(`${byTestId("approval-card")}[data-tool="cli_exec"]`);
  await card.waitForDisplayed({ timeout: 20_000 });
  return card;
}

async function answer(pattern) {
  await browser.waitUntil(
    async () => {
      const messages = await browser.$$(byTestId("message-assistant"));
      for (const m of messages) if (pattern.test(await m.getText())) return true;
      return false;
    },
    { timeout: 20_000, timeoutMsg: `no answer matching ${pattern}` },
  );
}

test("deny: the card shows the call, the run goes on with the denial, nothing runs", async () => {
  await ask("Run the command, uno");
  const card = await approvalCard();
  assert.match(await card.getText(), /Ingeniera/);
  // The command line it will run, and where; the raw arguments one click away.
  const command = await card.$(byTestId("approval-command")).getText();
  assert.match(command, /^\$ sh -c '[^']*touch made-uno\.txt[^']*'$/);
  assert.match(await card.$(byTestId("approval-where")).getText(), /Runs this command in Ingeniera's workspace folder/);
  assert.equal(await card.$(byTestId("approval-arguments")).isDisplayed(), false, "raw arguments folded");
  await shot(browser, "approval-asked");
  await card.$(`${byTestId("approval-raw")} summary`).click();
  const args = await card.$(byTestId("approval-arguments")).getText();
  assert.match(args, /"command": "sh"/);
  assert.match(args, /touch made-uno\.txt/);
  await shot(browser, "approval-asked-raw");

  await card.$(byTestId("approval-deny")).click();
  await answer(/not allowed to run it/);
  const entry = await browser.$(`${byTestId("tool-entry")}[data-tool="cli_exec"]`);
  await entry.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await entry.getAttribute("data-state"), "denied");
  assert.equal(existsSync(join(workspace(), "made-uno.txt")), false, "the denied command did not run");
  const runs = JSON.parse(colmena("--json", "runs", "list", "--target", "ingeniera"));
  const steps = JSON.parse(colmena("--json", "runs", "show", runs[0].id)).steps;
  const result = steps.find((s) => s.kind === "tool_result");
  assert.equal(result.content.denied, true);
  await shot(browser, "approval-denied");
});

test("a long run of spaces or a bidi override cannot hide part of a call", async () => {
  await ask("Run the command, cinco");
  const card = await approvalCard();
  // The command line hides nothing either: same escapes, same collapsed run.
  const line = await card.$(byTestId("approval-command")).getText();
  assert.match(line, /echo updating docs/);
  assert.match(line, /touch made-cinco\.txt/, "the tail is in view");
  assert.match(line, /\\u\{202E\}txt\.exe/, "the override is written out, not obeyed");
  assert.match(await card.$(`${byTestId("approval-command")} ${byTestId("approval-blank")}`).getText(), /15000 spaces/);
  await card.$(`${byTestId("approval-raw")} summary`).click();
  const shown = await card.$(byTestId("approval-arguments")).getText();
  assert.match(shown, /echo updating docs/);
  assert.match(shown, /touch made-cinco\.txt/, "the tail is in view");
  assert.match(shown, /\\u\{202E\}txt\.exe/, "the override is written out, not obeyed");
  assert.match(await card.$(`${byTestId("approval-arguments")} ${byTestId("approval-blank")}`).getText(), /15000 spaces/);
  assert.match(await card.$(byTestId("approval-length")).getText(), /characters in full/);
  await shot(browser, "approval-hidden-tail");
  await card.$(byTestId("approval-deny")).click();
  await answer(/hidden part/);
  assert.equal(existsSync(join(workspace(), "made-cinco.txt")), false);
});

test("allow: the command runs in the agent's workspace and its output appears", async () => {
  await ask("Run the command, dos");
  const card = await approvalCard();
  await card.$(byTestId("approval-allow-once")).click();
  await answer(/the command ran/);
  const entry = await browser.$(`${byTestId("tool-entry")}[data-tool="cli_exec"]`);
  await entry.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await entry.getAttribute("data-state"), "ok");
  await entry.$("summary").click();
  const output = await entry.$(byTestId("tool-output"));
  await output.waitForDisplayed();
  assert.match(await output.getText(), /hola-dos/);
  assert.equal(existsSync(join(workspace(), "made-dos.txt")), true, "the allowed command ran in the workspace");
  await shot(browser, "approval-allowed");
});

test("a run no view shows asks through the app-wide stack; the window's answer reaches it", async () => {
  const run = spawn(CLI, ["--data-dir", driver.dataDir, "agent", "run", "ingeniera", "Run the command, tres"], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let printed = "";
  run.stdout.on("data", (chunk) => (printed += String(chunk)));
  const ended = new Promise((resolve) => run.on("exit", resolve));

  await click("nav-catalog");
  const stack = await el("pending-approvals");
  await stack.waitForDisplayed({ timeout: 20_000 });
  assert.match(await stack.getText(), /Run a command/);
  await shot(browser, "approval-background");
  await stack.$(byTestId("approval-deny")).click();

  assert.equal(await ended, 0);
  assert.match(printed, /asks to run cli_exec/);
  assert.match(printed, /said no from the app/);
  assert.equal(existsSync(join(workspace(), "made-tres.txt")), false);
  await browser.waitUntil(async () => !(await el("pending-approvals").isExisting()), { timeout: 10_000 });
});

test("the rules are the person's: Run set to Allow in the catalog runs without asking; a role's wake-ups have their own grant", async () => {
  await click("nav-catalog");
  await click("agent-ingeniera");
  const rules = await el("agent-permissions");
  await rules.scrollIntoView({ block: "center" });
  assert.equal(await el("permission-run").then((e) => e.getAttribute("data-value")), "ask", "running programs asks by default");
  assert.equal(await el("permission-read").then((e) => e.getAttribute("data-value")), "allow");
  await click("permission-run-allow");
  await browser.waitUntil(async () => (await el("permission-run").then((e) => e.getAttribute("data-value"))) === "allow");
  await shot(browser, "agent-permissions");
  await click("save-agent");
  await browser.waitUntil(
    () => JSON.parse(colmena("--json", "agent", "show", "ingeniera")).permissions.run === "allow",
    { timeout: 10_000, timeoutMsg: "the rule was not saved" },
  );

  await ask("Run the command, cuatro");
  await answer(/without asking/);
  assert.equal(await browser.$(byTestId("approval-card")).isExisting(), false);
  assert.equal(existsSync(join(workspace(), "made-cuatro.txt")), true);

  // A role played by this agent: its wake-ups may only answer who wrote to
  // it unless ticked; changing other systems stands apart, unticked.
  await click("nav-inbox");
  await click("new-role");
  await fillField(browser, '[data-testid="role-name"]', "Guardia");
  await chooseOption(browser, "role-agent", "ingeniera");
  const grant = await el("role-unattended");
  await grant.waitForDisplayed();
  assert.equal(await el("unattended-reply").then((e) => e.isSelected()), true);
  for (const risk of ["send", "run", "act"]) {
    assert.equal(await el(`unattended-${risk}`).then((e) => e.isSelected()), false, risk);
  }
  await shot(browser, "role-unattended");
  await click("role-save");
  await click("token-done");
  const role = JSON.parse(colmena("--json", "author", "show", "guardia"));
  assert.deepEqual(role.unattended, ["reply"]);
});
