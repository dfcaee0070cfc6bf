// Catalog → Endpoints in the real window (issue 14, SPEC H27–H29): an HTTP
// endpoint pointing at a server this test starts on 127.0.0.1 is declared
// with a secret header; the live preview shows the request the model would
// send with the secret masked; Test calls it for real (the server gets the
// secret, the window never shows it, not even echoed back); the agent
// editor's tool chips offer endpoint_<id> and an agent is given it — in
// English and in Spanish.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { byTestId, clickTestId, colmenaCli, completeFirstRun, fillField, launchApp, retryStale, shot, startDriver, waitGone } from "./harness.mjs";

const SECRET = "Bearer e2e-endpoint-SECRET-5c1d2e";

let driver;
let browser;
let api;
let base;
const seen = [];

/** A weather API on 127.0.0.1 that records each request and echoes the
 * Authorization header back (the window must mask it). */
function startApi() {
  return new Promise((resolveApi) => {
    const server = createServer((request, response) => {
      seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization ?? "" });
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ city: decodeURIComponent(request.url.split("/")[3]?.split("?")[0] ?? ""), tempC: 21, youSent: request.headers.authorization ?? "" }));
    });
    server.listen(0, "127.0.0.1", () => resolveApi(server));
  });
}

before(async () => {
  api = await startApi();
  base = `http://127.0.0.1:${api.address().port}`;
  driver = await startDriver({ portOffset: 15 });
  browser = await launchApp();
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await driver?.stop();
  api?.close();
});

const el = (id) => browser.$(byTestId(id));
const click = (id) => clickTestId(browser, id);
const text = (id) => retryStale(async () => (await el(id)).getText());
/** What an element holds, read from the DOM (getText skips clipped boxes). */
const content = (id) => retryStale(async () => browser.execute((node) => node.textContent, await el(id)));
const pageHoldsSecret = async () => (await browser.getPageSource()).includes("e2e-endpoint-SECRET");

async function openEndpointsTab() {
  await click("nav-catalog");
  await click("tab-endpoints");
  await el("endpoints-panel").then((e) => e.waitForDisplayed());
}

test("an endpoint is declared with a secret header; the preview masks it", async () => {
  await completeFirstRun(browser, []);
  colmenaCli(driver.dataDir, "agent", "add", "Meteo", "--tools", "web_fetch");
  await openEndpointsTab();
  assert.match(await browser.$(".mcp-empty").getText(), /No endpoints yet/);

  await click("endpoint-add");
  await el("endpoint-dialog").then((e) => e.waitForDisplayed());
  await fillField(browser, "#endpoint-name", "Weather");
  await fillField(browser, "#endpoint-description", "Current weather of a city: temperature in °C.");
  await fillField(browser, "#endpoint-url", `${base}/v1/weather/{{city}}`);
  await click("endpoint-declare-city");
  await click("endpoint-query-add");
  await fillField(browser, byTestId("endpoint-query-name-0"), "units");
  await fillField(browser, byTestId("endpoint-query-value-0"), "metric");
  await click("endpoint-secrets-add");
  await fillField(browser, byTestId("endpoint-secret-name-0"), "Authorization");
  await fillField(browser, byTestId("endpoint-secret-value-0"), SECRET);
  assert.equal(await el("endpoint-secret-value-0").then((e) => e.getAttribute("type")), "password");
  await fillField(browser, "#endpoint-sample", '{"city": "San Sebastián"}');

  const url = `${base}/v1/weather/San%20Sebasti%C3%A1n?units=metric`;
  await browser.waitUntil(async () => (await content("endpoint-preview-url").catch(() => "")) === url, {
    timeout: 10_000,
    timeoutMsg: "the preview does not show the final URL",
  });
  assert.match(await content("endpoint-preview-secret"), /Authorization: ••••••••/);
  // Before saving, the typed secret is only in its password field; the
  // preview, computed by the backend, holds the mask.
  assert.doesNotMatch(await content("endpoint-preview"), /e2e-endpoint-SECRET/);
  await shot(browser, "endpoint-dialog-preview-en");
  assert.equal(seen.length, 0, "a preview sends nothing");
});

test("Test saves it and calls it: the server gets the secret, the window never shows it", async () => {
  await click("endpoint-test");
  await el("endpoint-test-result").then((e) => e.waitForDisplayed({ timeout: 20_000 }));
  assert.match(await text("endpoint-test-status"), /Status 200/);
  const body = await content("endpoint-test-body");
  assert.match(body, /"tempC": 21/);
  assert.match(body, /\[secret\]/, "the echoed secret is masked");
  assert.equal(seen.length, 1);
  assert.equal(seen[0].url, "/v1/weather/San%20Sebasti%C3%A1n?units=metric");
  assert.equal(seen[0].authorization, SECRET);
  // Saved: the secret's row now says it is set, and holds no value.
  const secret = await el("endpoint-secret-value-0");
  assert.equal(await secret.getValue(), "");
  assert.match(await secret.getAttribute("placeholder"), /set/);
  assert.equal(await pageHoldsSecret(), false);
  // The secret's row in view, beside the sticky result.
  await el("endpoint-secrets").then((e) => e.scrollIntoView({ block: "center" }));
  await shot(browser, "endpoint-dialog-tested-en");
  await click("endpoint-dialog-close");
  await waitGone(browser, byTestId("endpoint-dialog"));

  const row = await el("endpoint-weather");
  await row.waitForDisplayed();
  assert.equal(await content("endpoint-tool"), "endpoint_weather");
  await shot(browser, "endpoints-list-en");
  const shown = JSON.parse(colmenaCli(driver.dataDir, "--json", "endpoint", "show", "weather"));
  assert.deepEqual(shown.secretHeaderNames, ["Authorization"]);
  assert.ok(!JSON.stringify(shown).includes("e2e-endpoint-SECRET"));
});

test("the agent editor's tool chips offer endpoint_weather and an agent is given it", async () => {
  await click("tab-agents");
  await click("agent-meteo");
  await browser.waitUntil(async () => (await browser.$("#agent-name").getValue()) === "Meteo");
  const box = await browser.$("#agent-tools");
  await box.click();
  await box.setValue("weather");
  await el("suggest-endpoint_weather").then((e) => e.waitForDisplayed({ timeout: 10_000 }));
  await shot(browser, "endpoint-agent-suggestion-en");
  await browser.keys("Enter");
  await el("tool-chip-endpoint_weather").then((e) => e.waitForDisplayed());
  await click("save-agent");
  await browser.waitUntil(async () => (await text("save-bar-status")) === "All changes saved", { timeout: 10_000 });
  const meteo = JSON.parse(colmenaCli(driver.dataDir, "--json", "agent", "show", "meteo"));
  assert.ok(meteo.tools.includes("endpoint_weather"), `the agent's tools: ${meteo.tools}`);
});

test("in Spanish: the list and the form with its preview", async () => {
  await click("quick-lang-es");
  await openEndpointsTab();
  await browser.waitUntil(async () => (await browser.$(byTestId("endpoints-panel")).getText()).includes("Añadir endpoint"), { timeout: 10_000 });
  await shot(browser, "endpoints-list-es");
  await click("endpoint-edit-weather");
  await el("endpoint-dialog").then((e) => e.waitForDisplayed());
  assert.equal(await browser.$("#dialog-title").getText(), "Editar Weather");
  await fillField(browser, "#endpoint-sample", '{"city": "Bilbao"}');
  await browser.waitUntil(async () => (await content("endpoint-preview-url").catch(() => "")).includes("/v1/weather/Bilbao"), { timeout: 10_000 });
  assert.match(await content("endpoint-preview-secret"), /oculta/);
  await shot(browser, "endpoint-dialog-preview-es");
  await click("endpoint-test");
  await el("endpoint-test-result").then((e) => e.waitForDisplayed({ timeout: 20_000 }));
  assert.match(await text("endpoint-test-status"), /Estado 200/);
  await el("endpoint-test-result").then((e) => e.scrollIntoView({ block: "center" }));
  await shot(browser, "endpoint-dialog-tested-es");
  assert.equal(seen.at(-1).authorization, SECRET, "the kept secret is still sent");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("endpoint-dialog"));
  await click("quick-lang-en");
});
