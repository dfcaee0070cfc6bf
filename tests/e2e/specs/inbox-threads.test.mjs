// Working in the inbox (issue 15, item 4) in the real window: a role's
// message is answered in its thread (the answer carries reply_to, and the
// role's side of the bus sees it), a read message is marked unread by hand,
// and the person's mail is searched — the search never shows mail between
// two other authors. In English and Spanish.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, fillField, launchApp, shot, startDriver, languageShown } from "./harness.mjs";

let driver;
let browser;
let owner;
let question;
let others;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const json = (...args) => JSON.parse(colmena("--json", ...args));

/** The bodies of the message cards in the list `testId`, as text. */
async function bodies(testId) {
  const items = await browser.$$(`[data-testid="${testId}"] .bus-body`);
  const texts = [];
  for (const item of items) texts.push(await item.getText());
  return texts;
}

before(async () => {
  driver = await startDriver({ portOffset: 17 });
  for (const name of ["Redactora", "Revisor"]) colmena("author", "create", name);
  owner = json("author", "list").find((a) => a.isOwner);
  question = json("message", "send", owner.id, "¿Publicamos el informe de la colmena el lunes?", "--as", "redactora");
  colmena("message", "send", owner.id, "El borrador del informe está en la carpeta compartida.", "--as", "revisor");
  // Mail between the two roles: the person's search must never show it.
  others = json("message", "send", "revisor", "Informe secreto: no se lo enseñes a nadie.", "--as", "redactora");
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

test("the person answers a role in its thread, and marks a message unread", async () => {
  await click("nav-inbox");
  await click(`author-${owner.id}`);
  await (await el(`message-${question.id}`)).waitForDisplayed({ timeout: 10_000 });
  await click(`reply-${question.id}`);
  const view = await el("thread-view");
  await view.waitForDisplayed({ timeout: 10_000 });
  // Opening it read the question.
  await browser.waitUntil(async () => (await el(`message-${question.id}`).then((e) => e.getAttribute("data-unread"))) === "false", {
    timeout: 10_000,
    timeoutMsg: "opening the thread did not mark the question read",
  });
  await fillField(browser, '[data-testid="reply-body"]', "Sí, el lunes a primera hora.");
  await click("reply-send");
  await browser.waitUntil(async () => (await bodies("thread-list")).length === 2, {
    timeout: 10_000,
    timeoutMsg: "the answer did not join the thread",
  });
  assert.deepEqual(await bodies("thread-list"), ["¿Publicamos el informe de la colmena el lunes?", "Sí, el lunes a primera hora."]);
  assert.match(await (await el("thread-title")).getText(), /2 messages/);
  await shot(browser, "inbox-thread-en");

  // The role's side: the answer is in its inbox, answering the question,
  // and the thread reads the same from there.
  const [answer] = json("message", "inbox", "--as", "redactora", "--peek");
  assert.equal(answer.body, "Sí, el lunes a primera hora.");
  assert.equal(answer.reply_to, question.id);
  assert.equal(answer.from, owner.id);

  // Back in the list, the question (read) can be marked unread again.
  await click("thread-back");
  await click(`mark-unread-${question.id}`);
  const card = await el(`message-${question.id}`);
  await browser.waitUntil(async () => (await card.getAttribute("data-unread")) === "true", { timeout: 10_000 });
  await browser.waitUntil(async () => (await el(`unread-${owner.id}`).then((e) => e.getText())) === "2", {
    timeout: 10_000,
    timeoutMsg: "the unread count did not come back",
  });
  await click(`mark-read-${question.id}`);
  await browser.waitUntil(async () => (await card.getAttribute("data-unread")) === "false", { timeout: 10_000 });
});

test("the person searches their mail, and sees none of the roles' own", async () => {
  await fillField(browser, '[data-testid="inbox-search"]', "informe");
  await browser.keys("Enter");
  const results = await el("search-results");
  await results.waitForDisplayed({ timeout: 10_000 });
  const found = await bodies("search-results");
  assert.equal(found.length, 2, JSON.stringify(found));
  assert.ok(found.every((b) => !b.includes("secreto")), JSON.stringify(found));
  assert.equal(await el(`message-${others.id}`).isExisting(), false);
  assert.match(await (await el("search-count")).getText(), /2 messages match “informe”/);
  await shot(browser, "inbox-search-en");
  // A result opens its thread.
  await click(`open-thread-${question.id}`);
  await (await el("thread-view")).waitForDisplayed({ timeout: 10_000 });
  await click("thread-back");
  await click("inbox-search-clear");
  await (await el("inbox-list")).waitForDisplayed({ timeout: 10_000 });
});

test("threads and search read in Spanish", async () => {
  await click("quick-lang-es");
  await languageShown(browser, "es");
  await click(`open-thread-${question.id}`);
  await (await el("thread-view")).waitForDisplayed({ timeout: 10_000 });
  assert.match(await (await el("thread-title")).getText(), /2 mensajes/);
  assert.match(await (await el("reply-box")).getText(), /Responder a Redactora/);
  await shot(browser, "inbox-thread-es");
  await click("thread-back");
  await fillField(browser, '[data-testid="inbox-search"]', "borrador");
  await browser.keys("Enter");
  await (await el("search-results")).waitForDisplayed({ timeout: 10_000 });
  assert.match(await (await el("search-count")).getText(), /1 mensaje coincide con «borrador»/);
  await shot(browser, "inbox-search-es");
});
