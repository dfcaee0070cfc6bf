// The notice toasts: an ordinary notice fades on its own (not while the
// person is on it), an urgent one stays until marked read, and the toasts sit
// below dialogs (the CSS stacking order, read from the style sheets the app
// loads).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { Notice } from "../../api";
import i18n from "../../i18n";
import { FADE_MS, MAX_TOASTS, NoticeToasts } from "./NoticeToasts";

const bus: { send: (notice: Notice) => void } = { send: () => undefined };

vi.mock("../../api", () => ({
  onUserNotice: (listener: (notice: Notice) => void) => {
    bus.send = listener;
    return Promise.resolve(() => undefined);
  },
  api: { listAgents: () => Promise.resolve([{ id: "redactora", name: "Redactora", persona: null }]) },
  runtimeApi: {},
}));

async function renderToasts() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NoticeToasts />
    </QueryClientProvider>,
  );
  // Let the listener subscribe.
  await act(async () => {
    await Promise.resolve();
  });
}

function notify(notice: Partial<Notice> & { title: string }) {
  act(() => bus.send({ body: "", urgent: false, from: null, topic: null, ...notice }));
}

describe("NoticeToasts", () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("opens the job a job's notice names: its result, or the failed job", async () => {
    window.location.hash = "#/activity";
    await renderToasts();
    notify({ title: "Scheduled job done: Digest", body: "Three items", topic: { type: "jobDone", job: "Digest", jobId: "digest" } });
    fireEvent.click(screen.getByTestId("notice-open"));
    expect(window.location.hash).toBe("#/cron/digest");
    expect(screen.queryByText("Three items")).not.toBeInTheDocument();
    notify({ title: "x", urgent: true, topic: { type: "jobFailed", job: "Digest", jobId: "digest" } });
    expect(screen.getByTestId("notice-open")).toHaveTextContent(/Open the job|Abrir la tarea/);
  });

  it("lets an ordinary notice fade on its own", async () => {
    await renderToasts();
    notify({ title: "Draft ready" });
    expect(screen.getByText("Draft ready")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(FADE_MS - 100));
    expect(screen.getByText("Draft ready")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    expect(screen.queryByText("Draft ready")).not.toBeInTheDocument();
  });

  it("keeps an ordinary notice while the pointer is on it, and fades it after", async () => {
    await renderToasts();
    notify({ title: "Read me slowly" });
    fireEvent.mouseEnter(screen.getByTestId("notice"));
    act(() => vi.advanceTimersByTime(FADE_MS * 3));
    expect(screen.getByText("Read me slowly")).toBeInTheDocument();
    fireEvent.mouseLeave(screen.getByTestId("notice"));
    act(() => vi.advanceTimersByTime(FADE_MS + 1));
    expect(screen.queryByText("Read me slowly")).not.toBeInTheDocument();
  });

  it("keeps an urgent notice until it is marked read", async () => {
    await renderToasts();
    notify({ title: "Server down", urgent: true, from: "redactora" });
    act(() => vi.advanceTimersByTime(FADE_MS * 10));
    expect(screen.getByText("Server down")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("notice-read"));
    expect(screen.queryByText("Server down")).not.toBeInTheDocument();
    expect(screen.queryByTestId("notices")).not.toBeInTheDocument();
  });

  it("names the agent that sent it, not its id", async () => {
    await renderToasts();
    notify({ title: "Hello", urgent: true, from: "redactora" });
    expect(await screen.findByText("From Redactora")).toBeInTheDocument();
  });

  it("words Colmena's own notices in the person's language, an agent's as written", async () => {
    await renderToasts();
    await act(async () => {
      await i18n.changeLanguage("es");
    });
    try {
      notify({ title: "Urgent: Ana", body: "¿Revisas el borrador?", urgent: true, topic: { type: "urgentMail", sender: "Ana" } });
      notify({ title: "Redactora asks to use cli_exec", urgent: true, topic: { type: "approval", agent: "Redactora", tool: "cli_exec", risk: "run" } });
      notify({ title: "Draft ready", urgent: true });
      expect(screen.getByText("Urgente: Ana")).toBeInTheDocument();
      expect(screen.getByText("¿Revisas el borrador?")).toBeInTheDocument();
      expect(screen.getByText("Redactora pide usar cli_exec")).toBeInTheDocument();
      expect(screen.getByText(/El agente ejecuta programas/)).toBeInTheDocument();
      expect(screen.getByText("Draft ready")).toBeInTheDocument();
      expect(screen.queryByText("Urgent: Ana")).not.toBeInTheDocument();
    } finally {
      await act(async () => {
        await i18n.changeLanguage("en");
      });
    }
  });

  it("closes every toast at once, and shows no more than a few", async () => {
    await renderToasts();
    for (let i = 1; i <= MAX_TOASTS + 2; i++) notify({ title: `Alarm ${i}`, urgent: true });
    expect(screen.getAllByTestId("notice")).toHaveLength(MAX_TOASTS);
    expect(screen.queryByText("Alarm 1")).not.toBeInTheDocument();
    fireEvent.click(screen.getByTestId("notices-clear"));
    expect(screen.queryAllByTestId("notice")).toHaveLength(0);
  });
});

// Vitest empties style sheets it imports, so they are read from disk.
const styles = join(dirname(fileURLToPath(import.meta.url)), "../../styles");
const sheet = (name: string) => readFileSync(join(styles, name), "utf8");
const appCss = sheet("app.css");
const runtimeCss = sheet("runtime.css");

/** The z-index a rule for exactly `selector` sets in `css`. */
function zIndex(css: string, selector: string): number {
  const plain = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const rule = new RegExp(`(?:^|[}\\s])${escaped}\\s*\\{([^}]*)\\}`).exec(plain);
  const value = rule?.[1] && /z-index:\s*(-?\d+)/.exec(rule[1]);
  if (!value?.[1]) throw new Error(`no z-index for ${selector}`);
  return Number(value[1]);
}

describe("the toasts' place in the stacking order", () => {
  it("is below the dialog backdrop and the approval stack", () => {
    const toasts = zIndex(runtimeCss, ".toasts");
    expect(toasts).toBeLessThan(zIndex(appCss, ".dialog-backdrop"));
    expect(toasts).toBeLessThan(zIndex(runtimeCss, ".approval-stack"));
  });
});
