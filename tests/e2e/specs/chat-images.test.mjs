// Images that reach the model, in the real window (issue 14, SPEC H37): a
// photo dropped on the chat composer shows as a thumbnail, goes with the
// message to a scripted model that accepts images (llava), and the
// conversation shows it beside the answer — which the scripted provider
// gives only when the request carried exactly one image, and which it
// streams without token counts, as llama.cpp's server does: the answer
// reads "Tokens: —", never "0 tokens in". Screenshots in English and
// Spanish. Settings shows the model's "accepts images" setting, and
// switching it off makes the next image a clear error naming the model,
// with nothing sent.
//
// The drop is a synthetic `drop` event carrying a DataTransfer (a native
// drag cannot be driven through WebDriver); from there the file goes the
// real way: read in the page, uploaded over the IPC, normalised for models.

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
  newChatWith,
  shot,
  startDriver,
  startScriptedProvider,
} from "./harness.mjs";

const LOOKER = "You look at pictures.";
const SEEN = "I see a warm gradient, amber into deep blue.";

const SCRIPT = {
  rules: [
    // Only a request carrying one image gets this answer: the thumbnail is
    // not enough, the image must have reached the model.
    { when: { systemContains: LOOKER, images: 1 }, reply: { type: "text", text: SEEN }, omitUsage: true, repeat: true },
    { when: { systemContains: LOOKER }, reply: { type: "text", text: "No image reached me." }, omitUsage: true, repeat: true },
  ],
  models: ["llava:7b"],
};

let driver;
let browser;
let provider;

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);

/**
 * Waits until `selector` is shown, finding it anew each time: a new chat
 * re-renders the composer, and a node found before that is stale.
 */
async function shown(selector, timeout, timeoutMsg = `${selector} is not shown`) {
  await browser.waitUntil(
    async () => {
      try {
        return await browser.$(selector).isDisplayed();
      } catch {
        return false;
      }
    },
    { timeout, timeoutMsg },
  );
}
const colmena = (...args) => colmenaCli(driver.dataDir, ...args);

/** What the scripted provider received: each request's images. */
async function received() {
  const answer = await fetch(`${provider.url}/scripted/requests`);
  return (await answer.json()).requests;
}

/** Drops a 1600×1200 JPEG, drawn in the page, on the chat composer. */
async function dropPhoto(name) {
  await browser.executeAsync((fileName, done) => {
    const picture = document.createElement("canvas");
    picture.width = 1600;
    picture.height = 1200;
    const g = picture.getContext("2d");
    const sky = g.createLinearGradient(0, 0, 1600, 1200);
    sky.addColorStop(0, "#f59e0b");
    sky.addColorStop(1, "#1d4ed8");
    g.fillStyle = sky;
    g.fillRect(0, 0, 1600, 1200);
    picture.toBlob(
      (blob) => {
        const data = new DataTransfer();
        data.items.add(new File([blob], fileName, { type: "image/jpeg" }));
        const zone = document.querySelector('[data-testid="chat-composer"]');
        zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        done();
      },
      "image/jpeg",
      0.9,
    );
  }, name);
}

before(async () => {
  driver = await startDriver({ portOffset: 16 });
  provider = await startScriptedProvider(driver.dataDir, SCRIPT, "chat-images-script");
  colmena("provider", "add", "Local", "--kind", "openai", "--base-url", `${provider.url}/v1`);
  colmena("model", "add", "local", "llava:7b");
  colmena("model", "default", "local/llava:7b");
  colmena("agent", "add", "Mirona", "--system-prompt", LOOKER);
  browser = await launchApp();
  await completeFirstRun(browser, []);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  await provider?.stop();
});

test("an image dropped in chat reaches the model, shows in the conversation, and tokens read —", async () => {
  await click("nav-chat");
  await newChatWith(browser, "mirona");
  await shown(byTestId("chat-input"), 10_000);

  await dropPhoto("colmena.jpg");
  await shown(
    `${byTestId("chat-attachments")} ${byTestId("chat-thumb")}`,
    15_000,
    "the dropped photo has no thumbnail in the composer",
  );
  // The thumbnail is the copy made for models, decoded by the page.
  const thumbWidth = () =>
    browser.execute(
      (selector) => document.querySelector(selector)?.naturalWidth ?? 0,
      `${byTestId("chat-attachments")} ${byTestId("chat-thumb")}`,
    );
  await browser.waitUntil(async () => (await thumbWidth()) === 1024, {
    timeout: 10_000,
    timeoutMsg: "the thumbnail is not the 1024 px copy made for models",
  });
  await fillField(browser, byTestId("chat-input"), "What is in this picture?");
  await shot(browser, "chat-images-composer");

  await click("send-chat");
  const answer = await browser.$(`${byTestId("message-assistant")}*=${SEEN}`);
  await answer.waitForDisplayed({ timeout: 20_000, timeoutMsg: "the answer that needs the image never came" });
  // The composer is empty again; the sent message shows its image.
  assert.equal(await browser.$$(byTestId("chat-attachments")).length, 0);
  const sentThumb = await browser.$(`${byTestId("message-user")} ${byTestId("chat-thumb")}`);
  await sentThumb.waitForDisplayed({ timeout: 10_000, timeoutMsg: "the sent message shows no image" });

  const usage = await el("chat-usage");
  await usage.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await usage.getText(), "Tokens: — (not reported by the provider)");
  assert.doesNotMatch(await (await el("messages")).getText(), /\b0 tokens/);

  const requests = await received();
  assert.equal(requests.length, 1);
  assert.equal(requests[0].images.length, 1);
  assert.equal(requests[0].images[0].mediaType, "image/webp");
  assert.ok(requests[0].images[0].wellFormed);
  await shot(browser, "chat-images-conversation");

  await click("quick-lang-es");
  await browser.waitUntil(async () => (await usage.getText()) === "Tokens: — (el proveedor no los informa)", {
    timeout: 10_000,
    timeoutMsg: "the token line is not in Spanish",
  });
  await shot(browser, "chat-images-conversation-es");
  await click("quick-lang-en");
});

test("a model switched off for images gets a clear error naming it, and nothing is sent", async () => {
  await click("nav-settings");
  await click("settings-providers");
  const select = await el("model-images-local/llava:7b");
  await select.waitForDisplayed({ timeout: 10_000 });
  assert.equal(await select.getValue(), "auto");
  await shot(browser, "chat-images-model-setting");
  await chooseOption(browser, "model-images-local/llava:7b", "off");
  await browser.waitUntil(() => JSON.parse(colmena("--json", "model", "list"))[0].acceptsImages === false, {
    timeout: 10_000,
    timeoutMsg: "the setting did not reach the store",
  });

  const before = (await received()).length;
  await click("nav-chat");
  await newChatWith(browser, "mirona");
  await shown(byTestId("chat-input"), 10_000);
  await dropPhoto("second.jpg");
  await shown(`${byTestId("chat-attachments")} ${byTestId("chat-thumb")}`, 15_000, "the second photo has no thumbnail");
  await fillField(browser, byTestId("chat-input"), "And this one?");
  await click("send-chat");
  const error = await el("chat-error");
  await error.waitForDisplayed({ timeout: 15_000, timeoutMsg: "no error for a model without images" });
  assert.match(await error.getText(), /local\/llava:7b/);
  assert.equal((await received()).length, before, "nothing reached the provider");
  // The refused message keeps its image in the composer, to send elsewhere
  // (put back once the refusal has come: wait for it).
  await shown(`${byTestId("chat-attachments")} ${byTestId("chat-thumb")}`, 10_000, "the refused message's image is not back in the composer");
  await shot(browser, "chat-images-refused");
  // The error carries its fix: one click sends images to that model.
  const fix = await error.$(byTestId("remedy-model-images"));
  assert.match(await fix.getText(), /local\/llava:7b/);
  await fix.click();
  await browser.waitUntil(() => JSON.parse(colmena("--json", "model", "list"))[0].acceptsImages === true, {
    timeout: 10_000,
    timeoutMsg: "the remedy did not switch images on",
  });
});
