// Settings → Providers & models, in the real window: add a provider, see
// errors next to their fields, see the key only masked, survive a restart,
// and look right in both themes and both languages.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, completeFirstRun, launchApp, SCREENSHOTS, shot, startDriver, waitGone } from "./harness.mjs";

const KEY = "sk-test-1234567890abcdef";
let driver;
let browser;

before(async () => {
  driver = await startDriver();
  console.log(`screenshots: ${SCREENSHOTS}`);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
});

const click = (id) => clickTestId(browser, id);

async function text(id) {
  const el = await browser.$(byTestId(id));
  await el.waitForDisplayed({ timeout: 10_000 });
  return el.getText();
}

/** Empties an input the way a person does, so React sees the change
 * (WebDriver's clear command does not fire input events). */
async function clearInput(selector) {
  const input = await browser.$(selector);
  await input.click();
  await browser.keys(["Control", "a"]);
  await browser.keys("Backspace");
}

async function pageHasKey() {
  const source = await browser.getPageSource();
  const visible = await browser.execute(() => document.body.innerText);
  const values = await browser.execute(() =>
    [...document.querySelectorAll("input")].map((input) => input.value).join("\n"),
  );
  return [source, visible, values].some((s) => s.includes(KEY));
}

test("adds a provider; errors sit next to their fields; the key is only ever masked", async () => {
  browser = await launchApp();
  await completeFirstRun(browser, []);
  await click("nav-settings");
  await click("add-provider");
  await browser.$(byTestId("provider-dialog")).waitForDisplayed();

  // Nothing filled in: the name is required, and the error is under the name field.
  await click("provider-submit");
  const nameError = await text("error-name");
  assert.match(nameError, /required/i);
  await shot(browser, "provider-form-errors");

  // A malformed base URL is reported under the base URL field.
  await browser.$("#name").setValue("OpenAI");
  await browser.$("#baseUrl").setValue("not a url");
  await click("provider-submit");
  assert.match(await text("error-baseUrl"), /http/);
  assert.equal(await browser.$(byTestId("error-name")).isExisting(), false);

  // Fixed: the provider is added and its key shows masked.
  await clearInput("#baseUrl");
  await browser.$("#apiKey").setValue(KEY);
  await click("provider-submit");
  await waitGone(browser, byTestId("provider-dialog"));
  assert.equal(await text("provider-key-openai"), "sk-…cdef");
  assert.equal(await pageHasKey(), false, "the clear key is in the page");

  // A model, through the inline form.
  const newModel = await browser.$(byTestId("new-model-openai"));
  await newModel.setValue("gpt-4o-mini");
  await browser.keys("Enter");
  await browser.$(byTestId("model-openai/gpt-4o-mini")).waitForDisplayed();

  // A duplicate name is refused next to the name field.
  await click("add-provider");
  await browser.$("#name").setValue("openai");
  await click("provider-submit");
  assert.match(await text("error-name"), /already in use/);
  await browser.keys("Escape");
  await waitGone(browser, byTestId("provider-dialog"));
});

test("models can be switched, renamed and deleted; the provider edited and switched off", async () => {
  // Rename the model inline.
  const row = byTestId("model-openai/gpt-4o-mini");
  await browser.$(`${row} button[aria-label="Rename"]`).click();
  const input = await browser.$(`${row} input`);
  await input.waitForDisplayed();
  await browser.keys(["Control", "a"]);
  await browser.keys("Backspace");
  await input.setValue("gpt-4.1-mini");
  await browser.keys("Enter");
  const renamed = byTestId("model-openai/gpt-4.1-mini");
  await browser.$(renamed).waitForDisplayed();

  // A second model, then switch the first off and delete the second.
  await browser.$(byTestId("new-model-openai")).setValue("o3-mini");
  await browser.keys("Enter");
  const second = byTestId("model-openai/o3-mini");
  await browser.$(second).waitForDisplayed();
  await browser.$(`${renamed} [role="switch"]`).click();
  await browser.waitUntil(async () => (await browser.$(`${renamed} [role="switch"]`).getAttribute("aria-checked")) === "false");
  await browser.$(`${second} button[aria-label="Delete o3-mini"]`).click();
  await browser.$(`${second} .btn-danger`).click();
  await waitGone(browser, second);

  // Switching the provider off turns its models off and disables their switches.
  await click("toggle-provider-openai");
  await browser.waitUntil(async () => (await browser.$(`${renamed} [role="switch"]`).isEnabled()) === false);
  await shot(browser, "provider-disabled");
  await click("toggle-provider-openai");
  await browser.waitUntil(async () => (await browser.$(`${renamed} [role="switch"]`).isEnabled()) === true);
  assert.equal(await browser.$(`${renamed} [role="switch"]`).getAttribute("aria-checked"), "false", "the model's own choice is kept");
  await browser.$(`${renamed} [role="switch"]`).click();

  // Edit: a new key replaces the old one, still masked.
  await click("edit-provider-openai");
  await browser.$("#apiKey").setValue("sk-live-abcdefghijklmnop9876");
  await click("provider-submit");
  await waitGone(browser, byTestId("provider-dialog"));
  await browser.waitUntil(async () => (await text("provider-key-openai")) === "sk-…9876");
  await click("edit-provider-openai");
  await clearInput("#apiKey");
  await browser.$("#apiKey").setValue(KEY);
  await click("provider-submit");
  await waitGone(browser, byTestId("provider-dialog"));
  await browser.waitUntil(async () => (await text("provider-key-openai")) === "sk-…cdef");
  assert.equal(await pageHasKey(), false);

  // A second provider that is deleted again.
  await click("add-provider");
  await click("kind-ollama");
  await browser.$("#name").setValue("Ollama");
  await click("provider-submit");
  await browser.$(byTestId("provider-ollama")).waitForDisplayed();
  assert.equal(await text("provider-key-ollama"), "No key");
  await click("delete-provider-ollama");
  await click("confirm-delete-provider");
  await waitGone(browser, byTestId("provider-ollama"));
});

test("looks right in both themes and both languages", async () => {
  for (const language of ["en", "es"]) {
    await click(`quick-lang-${language}`);
    for (const theme of ["light", "dark"]) {
      const isDark = await browser.execute(() => document.documentElement.dataset.theme === "dark");
      if ((theme === "dark") !== isDark) await click("quick-theme");
      const applied = await browser.execute(() => document.documentElement.dataset.theme);
      assert.equal(applied, theme);
      await shot(browser, `settings-providers-${theme}-${language}`);
    }
  }
  const title = await browser.$("h1").getText();
  assert.equal(title, "Ajustes");

  await click("settings-data");
  assert.match(await text("secret-backend"), /Archivo de clave/);
  await shot(browser, "settings-data-dark-es");
  await click("settings-appearance");
  await click("theme-light");
  await click("lang-en");
  await shot(browser, "settings-appearance-light-en");
  await click("settings-providers");
  assert.equal(await pageHasKey(), false);
});

test("the provider, its masked key and its model survive a restart", async () => {
  await browser.deleteSession();
  browser = await launchApp();
  // The first run is not asked again.
  await click("nav-settings");
  assert.equal(await text("provider-key-openai"), "sk-…cdef");
  await browser.$(byTestId("model-openai/gpt-4.1-mini")).waitForDisplayed();
  // The language and theme chosen last time are kept.
  assert.equal(await browser.$("h1").getText(), "Settings");
  assert.equal(await browser.execute(() => document.documentElement.dataset.theme), "light");
  assert.equal(await pageHasKey(), false);
  await shot(browser, "after-restart");
});

test("the clear key is nowhere in the data dir", () => {
  const files = readdirSync(driver.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.ok(files.some((f) => f.name === "colmena.db"));
  for (const file of files) {
    const path = join(file.parentPath ?? file.path, file.name);
    assert.equal(readFileSync(path).includes(Buffer.from(KEY)), false, `${path} holds the clear key`);
  }
});
