// How the app looks, in the real window: every view in both languages and
// both themes, with data in it (made through the CLI and one run in the
// window), saved as screenshots to look at — and the defects seen in earlier
// screenshots checked so they stay gone (issue 12, item 6):
// - native controls (checkboxes, radios, selects) drawn from the theme, not
//   white boxes on a dark page, and the page's color-scheme following it;
// - emoji drawn in colour by a font, not as empty boxes;
// - a resumed run that reads "Resumed" once done, and a banner that clears;
// - a notice toast below an open dialog, and an urgent one that can be read
//   away;
// - Settings in Spanish at 1280 and 1024 wide: nothing wider than its box;
// - no view that fails to draw (it would show its error, not a blank window).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";

import {
  CLI,
  byTestId,
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
  newChatWith,
} from "./harness.mjs";

const HERALD = "You tell the person when something needs them.";

const SCRIPT = {
  rules: [
    {
      when: { systemContains: HERALD, toolResults: 0 },
      reply: {
        type: "toolCalls",
        text: "Telling you now.",
        calls: [{ name: "notify_user", arguments: JSON.stringify({ title: "The press release is due 🐝", body: "Send it before noon.", urgent: true }) }],
      },
      repeat: true,
    },
    { when: { systemContains: HERALD, toolResults: 1 }, reply: { type: "text", text: "Done: you were told." }, repeat: true },
    // A run cut off mid-answer (its CLI killed once the checkpoint is
    // saved), then resumed in the window.
    {
      when: { lastUserContains: "Interrumpe", toolResults: 0 },
      reply: { type: "toolCalls", text: "Cuento primero.", calls: [{ name: "doc_stats", arguments: JSON.stringify({ text: "uno dos tres" }) }] },
    },
    { when: { lastUserContains: "Interrumpe", toolResults: 1 }, reply: { type: "text", text: "Esto no llega nunca." }, delayMs: 60_000 },
    { when: { lastUserContains: "Interrumpe", toolResults: 1 }, reply: { type: "text", text: "Reanudado: las abejas 🐝 siguen." }, repeat: true },
    {
      reply: { type: "text", text: "## Bees 🐝\n\nBees pollinate **three of every four** food crops.\n\n- Hedgerows help.\n- So do fewer pesticides." },
      repeat: true,
      delayMs: 20,
    },
  ],
};

let driver;
let browser;
let provider;

const colmena = (...args) => colmenaCli(driver.dataDir, ...args);
const click = (id) => clickTestId(browser, id);

before(async () => {
  driver = await startDriver({ portOffset: 12 });
  provider = await startScriptedProvider(driver.dataDir, SCRIPT, "looks-script");
  colmena("provider", "add", "Scripted", "--kind", "openai", "--base-url", `${provider.url}/v1`, "--api-key", "sk-test-1234567890");
  colmena("model", "add", "scripted", "gpt-test");
  colmena("model", "default", "scripted/gpt-test");
  colmena("tool", "toggle", "notify_user", "--on");
  colmena("tool", "toggle", "doc_stats", "--on");
  colmena("agent", "add", "Abeja 🐝", "--description", "Writes about bees, with emoji.", "--system-prompt", "You write about bees.", "--tools", "doc_stats");
  colmena("agent", "add", "Heraldo", "--description", "Tells you when something needs you.", "--system-prompt", HERALD, "--tools", "notify_user");
  colmena("agent", "add", "Redactora de comunicados institucionales", "--description", "Una descripción larga para ver cómo se parte en la lista.", "--system-prompt", "Escribes comunicados.");
  colmena("swarm", "create", "Prensa", "--strategy", "sequential", "--members", "abeja_bee,redactora_de_comunicados_institucionales");
  colmena("memory", "write", "Tono de la marca", "Cercano, sin tecnicismos, con ejemplos. 🐝");
  colmena("memory", "write", "Audiencia", "Agricultores y consumidores de Castilla y León.");
  const canvas = JSON.parse(colmena("--json", "canvas", "create", "Abejas 🐝"));
  colmena("canvas", "add-item", canvas.id, "--kind", "custom", "--title", "Informe de la FAO", "--snippet", "Las abejas polinizan tres de cada cuatro cultivos.");
  colmena("canvas", "add-variant", canvas.id, "--preset", "x-thread");
  colmena("canvas", "add-variant", canvas.id, "--preset", "newsletter-section");
  colmena("canvas", "generate-all", canvas.id);
  colmena("agent", "run", "abeja_bee", "Tell me about bees");
  colmena("author", "create", "Clonador");
  colmena("message", "send", "Clonador", "¿Puedes revisar el comunicado? 🐝", "--priority", "urgent");
  await interruptedRun();
});

/** A run whose process died after its checkpoint: the window offers to
 * resume it when it starts. */
async function interruptedRun() {
  const child = spawn(CLI, ["--data-dir", driver.dataDir, "agent", "run", "abeja_bee", "Interrumpe esto"], {
    env: { ...process.env, COLMENA_SECRET_BACKEND: "file" },
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const checkpointed = () =>
    JSON.parse(colmena("--json", "runs", "list", "--target", "abeja_bee")).some((r) => r.input === "Interrumpe esto" && r.hasCheckpoint);
  const deadline = Date.now() + 30_000;
  while (!checkpointed()) {
    if (Date.now() > deadline) throw new Error("the run to interrupt saved no checkpoint");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  await exited;
}

after(async () => {
  await browser?.deleteSession().catch(() => {});
  await provider?.stop();
  await driver?.stop();
});

/** Goes to `#/view/section` the way the app's own links do. */
async function go(view, section = null) {
  await browser.execute((hash) => {
    window.location.hash = hash;
  }, section ? `#/${view}/${section}` : `#/${view}`);
  await browser.$(byTestId(`nav-${view}`)).waitForDisplayed();
  await browser.waitUntil(
    async () => (await browser.$(byTestId(`nav-${view}`)).getAttribute("aria-current")) === "page",
    { timeout: 10_000, timeoutMsg: `${view} did not open` },
  );
  // Its queries have answered and its lists rendered: nothing in the view
  // is loading any more (a busy button's spinner is not the view loading).
  await browser.waitUntil(
    () =>
      browser.execute(
        () =>
          !document.querySelector("main .view-loading") &&
          ![...document.querySelectorAll("main .spinner")].some((s) => !s.closest("button") && s.getClientRects().length > 0),
      ),
    { timeout: 15_000, timeoutMsg: `${view}${section ? `/${section}` : ""} is still loading` },
  );
}

async function setLook(lang, theme) {
  await click(`quick-lang-${lang}`);
  const current = await browser.execute(() => document.documentElement.dataset.theme);
  if (current !== theme) await click("quick-theme");
  await browser.waitUntil(async () => (await browser.execute(() => document.documentElement.dataset.theme)) === theme);
  await languageShown(browser, lang);
}

const VIEWS = [
  ["canvas", null],
  ["catalog", "agents"],
  ["catalog", "skills"],
  ["catalog", "tools"],
  ["catalog", "ethics"],
  ["catalog", "specialists"],
  ["swarms", null],
  ["chat", null],
  ["inbox", null],
  ["cron", null],
  ["memory", null],
  ["activity", null],
  ["settings", "providers"],
  ["settings", "server"],
  ["settings", "connect"],
  ["settings", "appearance"],
  ["settings", "data"],
];

test("the first run, then the app with data in it", async () => {
  browser = await launchApp();
  await completeFirstRun(browser);
  await browser.$(byTestId("nav-catalog")).waitForDisplayed({ timeout: 15_000 });
});

test("an interrupted run: Resuming while it runs, Resumed once done, and the banner clears", async () => {
  const banner = await browser.$(byTestId("resume-banner"));
  await banner.waitForDisplayed({ timeout: 15_000 });
  await shot(browser, "looks-resume-banner");
  await browser.$('[data-testid="resume-banner"] .btn-primary').click();
  const dialog = await browser.$(byTestId("resume-dialog"));
  await dialog.waitForDisplayed();
  await browser.waitUntil(async () => (await dialog.$("#dialog-title").getText()).startsWith("Resumed"), {
    timeout: 20_000,
    timeoutMsg: "the resumed run's dialog never said it was resumed",
  });
  await dialog.$(byTestId("run-output")).waitForDisplayed();
  await shot(browser, "looks-resume-done");
  assert.doesNotMatch(await dialog.getText(), /Resuming/);
  await waitGone(browser, byTestId("resume-banner"));
  await browser.keys("Escape");
  await waitGone(browser, byTestId("resume-dialog"));
});

test("a notice from an agent: below an open dialog, urgent until read", async () => {
  await setLook("en", "light");
  await go("chat");
  // A new chat with the herald; its answer calls notify_user.
  await newChatWith(browser, "heraldo");
  await fillField(browser, byTestId("chat-input"), "Anything due today?");
  await click("send-chat");
  const notice = await browser.$(byTestId("notice"));
  await notice.waitForDisplayed({ timeout: 20_000 });
  assert.equal(await notice.getAttribute("data-urgent"), "true");
  await shot(browser, "looks-notice-urgent");

  // A dialog opened over it: the dialog's backdrop, not the toast, is on top.
  await go("settings", "providers");
  await click("add-provider");
  await browser.$(byTestId("provider-dialog")).waitForDisplayed();
  const onTop = await browser.execute(() => {
    const toast = document.querySelector('[data-testid="notice"]');
    if (!toast) return "no toast";
    const box = toast.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit?.closest(".toasts") ? "toast" : hit?.closest(".dialog-backdrop") ? "dialog" : String(hit?.className);
  });
  await shot(browser, "looks-notice-under-dialog");
  assert.equal(onTop, "dialog", "the toast sits above the dialog");
  await browser.keys("Escape");
  await waitGone(browser, byTestId("provider-dialog"));

  // Urgent: still there after the dialog, gone once read.
  assert.equal(await browser.$(byTestId("notice")).isDisplayed(), true);
  await click("notice-read");
  await waitGone(browser, byTestId("notice"));
});

test("emoji are drawn in colour by a font, not as empty boxes", async () => {
  await go("catalog", "agents");
  const result = await browser.execute(() => {
    const family = getComputedStyle(document.body).fontFamily;
    const canvas = document.createElement("canvas");
    canvas.width = 64;
    canvas.height = 64;
    const ctx = canvas.getContext("2d");
    ctx.font = `40px ${family}`;
    ctx.textBaseline = "top";
    const width = ctx.measureText("🐝").width;
    ctx.fillStyle = "#000";
    ctx.fillText("🐝", 4, 4);
    const { data } = ctx.getImageData(0, 0, 64, 64);
    let coloured = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
      if (a > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
    }
    return { family, width, coloured };
  });
  assert.match(result.family, /Noto Color Emoji/, "the font stack has no emoji fallback");
  assert.ok(result.width > 20, `the emoji measured ${result.width}px wide`);
  assert.ok(result.coloured > 50, `the emoji has ${result.coloured} coloured pixels: drawn as a box?`);
  // And in the page: the agent named with one.
  await browser.$("//*[contains(text(), 'Abeja 🐝')]").waitForDisplayed();
  await shot(browser, "looks-emoji-agent");
});

test("dark mode: the page's color-scheme is dark and checkboxes, radios and selects are drawn dark", async () => {
  await setLook("en", "dark");
  await go("catalog", "agents");
  // Open an agent: its editor has checkboxes and a select.
  await browser.$("//*[contains(@class, 'item-title') and contains(text(), 'Heraldo')]").click();
  await browser.$(byTestId("agent-editor")).waitForDisplayed();
  const looks = await browser.execute(() => {
    const luminance = (colour) => {
      const [r, g, b] = colour.match(/[\d.]+/g).map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    const probe = (html) => {
      const holder = document.createElement("div");
      holder.innerHTML = html;
      document.querySelector('[data-testid="agent-editor"]').append(holder);
      const el = holder.firstElementChild;
      const style = getComputedStyle(el);
      const out = { appearance: style.appearance || style.webkitAppearance, background: style.backgroundColor, lum: luminance(style.backgroundColor) };
      holder.remove();
      return out;
    };
    const select = document.querySelector('[data-testid="agent-editor"] select');
    const selectStyle = select && getComputedStyle(select);
    return {
      scheme: getComputedStyle(document.documentElement).colorScheme,
      checkbox: probe('<input type="checkbox">'),
      checked: probe('<input type="checkbox" checked>'),
      radio: probe('<input type="radio">'),
      select: selectStyle && {
        appearance: selectStyle.appearance || selectStyle.webkitAppearance,
        lum: luminance(selectStyle.backgroundColor),
        arrow: selectStyle.backgroundImage,
      },
      realCheckboxes: document.querySelectorAll('[data-testid="agent-editor"] input[type="checkbox"]').length,
    };
  });
  await shot(browser, "looks-dark-agent-editor");
  await browser.execute(() => document.querySelector('[data-testid="agent-editor"] input[type="checkbox"]')?.scrollIntoView({ block: "center" }));
  // Ticked, the real one is filled with the accent and shows its mark.
  const box = await browser.$('[data-testid="agent-editor"] input[type="checkbox"]');
  await box.click();
  const ticked = await browser.execute(() => {
    const style = getComputedStyle(document.querySelector('[data-testid="agent-editor"] input[type="checkbox"]'));
    return { checked: document.querySelector('[data-testid="agent-editor"] input[type="checkbox"]').checked, background: style.backgroundColor, mark: style.backgroundImage };
  });
  await shot(browser, "looks-dark-agent-editor-checkboxes");
  await box.click();
  assert.equal(ticked.checked, true);
  assert.match(ticked.mark, /svg/, "a ticked box shows no mark");
  assert.notEqual(ticked.background, looks.checkbox.background, "a ticked box looks like an empty one");
  assert.equal(looks.scheme, "dark");
  assert.ok(looks.realCheckboxes > 0, "the agent editor shows no checkbox to look at");
  for (const name of ["checkbox", "radio"]) {
    assert.equal(looks[name].appearance, "none", `${name} is drawn natively`);
    assert.ok(looks[name].lum < 0.25, `${name} background ${looks[name].background} is light on a dark page`);
  }
  assert.ok(looks.checked.lum > 0.4, "a checked box is not filled with the accent");
  assert.equal(looks.select.appearance, "none", "the select's arrow is drawn natively");
  assert.ok(looks.select.lum < 0.25, "the select is light on a dark page");
  assert.match(looks.select.arrow, /svg/, "the select has no arrow of its own");
});

/** Elements inside `root` whose content is wider than their box (clipped
 * or scrolling sideways), described for the failure message. */
async function overflowing(root) {
  return browser.execute((selector) => {
    const out = [];
    for (const el of document.querySelectorAll(`${selector}, ${selector} *`)) {
      // Screen-reader-only text is clipped on purpose.
      if (el.clientWidth === 0 || el.closest("svg") || el.closest(".visually-hidden")) continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        const id = el.getAttribute("data-testid") ?? el.id ?? "";
        out.push(`${el.tagName.toLowerCase()}.${String(el.className).split(" ").join(".")}${id ? `#${id}` : ""} ${el.scrollWidth}>${el.clientWidth} "${(el.textContent ?? "").trim().slice(0, 40)}"`);
      }
    }
    return out;
  }, root);
}

test("Settings in Spanish: no label wider than its box at 1280 and 1024 wide", async () => {
  await setLook("es", "light");
  const problems = [];
  for (const width of [1280, 1024]) {
    await browser.setWindowSize(width, 820);
    await browser.waitUntil(async () => (await browser.execute(() => window.innerWidth)) <= width);
    for (const section of ["providers", "server", "connect", "appearance", "data"]) {
      await go("settings", section);
      await browser.$(byTestId(`section-${section}`)).waitForDisplayed();
      await shot(browser, `looks-settings-${section}-es-${width}`);
      for (const problem of await overflowing(".settings")) problems.push(`${width} ${section}: ${problem}`);
      // Each section's name on one line ("Conectar clientes de / IA" was not).
      const broken = await browser.execute(() =>
        [...document.querySelectorAll(".settings-link")]
          .filter((link) => link.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(link).lineHeight))
          .map((link) => link.textContent),
      );
      for (const label of broken) problems.push(`${width} ${section}: the section name "${label}" breaks over lines`);
    }
  }
  await browser.setWindowSize(1280, 820);
  assert.deepEqual(problems, []);
});

test("every view, in both languages and both themes, draws without failing", async () => {
  const failed = [];
  for (const lang of ["en", "es"]) {
    for (const theme of ["light", "dark"]) {
      await setLook(lang, theme);
      for (const [view, section] of VIEWS) {
        await go(view, section);
        const name = `looks-${view}${section ? `-${section}` : ""}-${lang}-${theme}`;
        await shot(browser, name);
        const failure = await browser.$(byTestId("view-failed"));
        if (await failure.isExisting()) failed.push(`${name}: ${await failure.getText()}`);
      }
    }
  }
  assert.deepEqual(failed, [], "views that failed to draw");
});

test("dialogs, in both languages and both themes", async () => {
  const dialogs = [
    ["settings", "providers", "add-provider", "provider-dialog"],
    ["inbox", null, "compose", "compose-dialog"],
    ["memory", null, "new-memory", "memory-dialog"],
    ["inbox", null, "new-role", "role-dialog"],
    ["canvas", null, "open-rounds", "rounds-dialog"],
  ];
  for (const lang of ["en", "es"]) {
    for (const theme of ["light", "dark"]) {
      await setLook(lang, theme);
      for (const [view, section, opener, dialog] of dialogs) {
        await go(view, section);
        await click(opener);
        await browser.$(byTestId(dialog)).waitForDisplayed();
        await shot(browser, `looks-dialog-${dialog}-${lang}-${theme}`);
        await browser.keys("Escape");
        await waitGone(browser, byTestId(dialog));
      }
    }
  }
});
