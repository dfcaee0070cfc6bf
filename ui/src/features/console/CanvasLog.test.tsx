import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { CanvasActivity } from "../../api";
import i18n from "../../i18n";
import { CanvasLog } from "./CanvasLog";

const backend = { exports: 1, activity: [] as CanvasActivity[] };

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  // Everything else the view's imports touch answers nothing.
  const nothing = new Proxy({}, { get: () => async () => [] });
  return {
    ...errors,
    api: nothing,
    runtimeApi: nothing,
    canvasApi: {
      activity: async () => backend.activity,
      exportsLast7Days: async () => backend.exports,
    },
  };
});

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const yesterdayNoon = () => {
  const d = new Date();
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - 1, 12, 0).toISOString();
};

function line(seq: number, over: Partial<CanvasActivity>): CanvasActivity {
  return {
    seq,
    canvasId: "c1",
    client: "ui",
    tool: "session.add_item",
    detail: "",
    createdAt: hoursAgo(0),
    canvasName: "Morning brief",
    presetId: null,
    round: null,
    model: null,
    count: null,
    ...over,
  };
}

function show() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <CanvasLog />
    </QueryClientProvider>,
  );
}

describe("the canvases' log", () => {
  beforeEach(async () => {
    await i18n.changeLanguage("en");
    backend.exports = 1;
    backend.activity = [
      line(3, { client: "claude-code", tool: "session.generate_variant", presetId: "tldr-brief", round: 1, model: "m", createdAt: hoursAgo(0) }),
      line(2, { client: "cli", tool: "session.add_item", detail: "Bees", createdAt: yesterdayNoon() }),
    ];
  });

  it("groups sentences by day, with the operation's name only in the tooltip", async () => {
    show();
    const today = await screen.findByRole("region", { name: "Today" });
    expect(within(today).getByTestId("activity-sentence")).toHaveTextContent("Claude Code generated round 1 of «TL;DR brief» in «Morning brief»");
    const yesterday = screen.getByRole("region", { name: "Yesterday" });
    expect(within(yesterday).getByTestId("activity-sentence")).toHaveTextContent("You added «Bees» to «Morning brief»");
    expect(within(yesterday).getByText("command line")).toBeInTheDocument();
    expect(screen.queryByText(/session\./)).toBeNull();
    expect(screen.getAllByTestId("activity-line")[0]).toHaveAttribute("title", "session.generate_variant · ");
  });

  it("opens a line's canvas, and a deleted canvas's lines open nothing", async () => {
    backend.activity = [
      line(5, { tool: "session.add_item", detail: "Bees", canvasId: "c9" }),
      line(4, { tool: "session.delete", canvasId: null, canvasName: "Old notes" }),
    ];
    show();
    const [live, gone] = await screen.findAllByTestId("activity-sentence");
    if (!live || !gone) throw new Error("two lines expected");
    await userEvent.setup().click(live);
    expect(window.location.hash).toBe("#/canvas/c9");
    expect(gone.tagName).toBe("SPAN");
    expect(gone).toHaveTextContent("You deleted «Old notes»");
  });

  it("speaks Spanish", async () => {
    await i18n.changeLanguage("es");
    backend.exports = 2;
    show();
    expect(await screen.findByRole("region", { name: "Hoy" })).toHaveTextContent("Claude Code generó la ronda 1 de");
    await i18n.changeLanguage("en");
  });
});
