// The Cron view as a person uses it, against a scripted backend: the empty
// state and the "no scheduler" warning; a job's next run in its zone and in
// local time; its history with the failure's error, a skipped entry's note
// and the run it produced; "Run now" refused by the backend is said, not
// swallowed; pause goes to the backend.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { CronJob, CronRun } from "../../api";
import { CronView } from "./CronView";

function job(extra: Partial<CronJob> = {}): CronJob {
  return {
    id: "press",
    name: "Press review",
    schedule: { kind: "cron", expression: "0 9 * * 1-5" },
    timeZone: "Pacific/Auckland",
    target: { kind: "agent", id: "writer" },
    targetName: "Writer",
    prompt: "Summarise the feeds.",
    missed: "skip",
    paused: false,
    unattended: [],
    nextRunAt: "2026-03-29T20:00:00Z",
    last: null,
    createdAt: "2026-03-01T10:00:00Z",
    updatedAt: "2026-03-01T10:00:00Z",
    ...extra,
  };
}

const failed: CronRun = {
  id: 2,
  jobId: "press",
  trigger: "schedule",
  scheduledFor: "2026-03-27T20:00:00Z",
  startedAt: "2026-03-27T20:00:01Z",
  finishedAt: "2026-03-27T20:00:03Z",
  status: "failed",
  durationMs: 2100,
  runId: "run-2",
  runKind: "agent",
  error: "the model refuses this prompt",
  note: null,
  outputPreview: null,
  failure: null,
};

const skipped: CronRun = {
  ...failed,
  id: 1,
  trigger: "catch_up",
  status: "skipped",
  durationMs: 0,
  runId: null,
  runKind: null,
  error: null,
  note: "missed 3 runs, from … while no scheduler ran; skipped",
};

const backend = {
  jobs: [] as CronJob[],
  history: [] as CronRun[],
  running: false,
  paused: [] as string[],
  updates: [] as [string, unknown][],
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: { listAgents: async () => [] },
    runtimeApi: { listSwarms: async () => [], getRun: async () => ({ run: null, steps: [], children: [] }) },
    inboxApi: { listAuthors: async () => [] },
    canvasApi: { list: async () => [] },
    desktopApi: {},
    cronApi: {
      list: async () => backend.jobs,
      history: async () => backend.history,
      scheduler: async () => ({ running: backend.running, here: backend.running }),
      trigger: async () => {
        throw new errors.ApiError("precondition", "nothing would run this job now", { reason: "no_scheduler" });
      },
      pause: async (id: string) => {
        backend.paused.push(id);
        return { ...backend.jobs[0], paused: true, nextRunAt: null };
      },
      resume: async () => backend.jobs[0],
      update: async (id: string, changes: unknown) => {
        backend.updates.push([id, changes]);
        return backend.jobs[0];
      },
      remove: async () => null,
      preview: async () => [],
    },
  };
});

function renderView() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <CronView />
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  backend.jobs = [];
  backend.history = [];
  backend.running = false;
  backend.paused = [];
  backend.updates = [];
});

describe("the Cron view", () => {
  it("says there is nothing yet, and that no scheduler would run a job", async () => {
    renderView();
    expect(await screen.findByText("No scheduled jobs yet")).toBeInTheDocument();
    expect(await screen.findByTestId("cron-scheduler")).toHaveTextContent("No scheduler");
    expect(screen.getByTestId("new-cron-job-empty")).toBeInTheDocument();
  });

  it("shows a job's next run in its zone and locally, and its history", async () => {
    backend.running = true;
    backend.jobs = [job({ last: failed })];
    backend.history = [failed, skipped];
    renderView();
    const next = await screen.findByTestId("cron-next-run");
    expect(next).toHaveTextContent("Pacific/Auckland");
    expect(within(next).getByTestId("cron-next-local")).toHaveTextContent("on this computer");
    expect(screen.getByTestId("cron-schedule")).toHaveTextContent("cron 0 9 * * 1-5");
    expect(screen.getByTestId("cron-target-name")).toHaveTextContent("Writer");
    const entries = await screen.findAllByTestId(/^cron-run-\d+$/);
    expect(entries.map((e) => e.dataset.status)).toEqual(["failed", "skipped"]);
    const [first, second] = [entries[0]!, entries[1]!];
    expect(within(first).getByTestId("cron-run-error")).toHaveTextContent("the model refuses this prompt");
    expect(within(first).getByText("2.1 s")).toBeInTheDocument();
    expect(within(first).getByTestId("cron-run-open")).toHaveTextContent("Open the run of Writer");
    expect(within(second).getByTestId("cron-run-note")).toHaveTextContent("Missed while no scheduler ran");
    expect(within(second).queryByTestId("cron-run-open")).toBeNull();
    expect(screen.getByTestId("cron-job-press")).toHaveTextContent("Failed");
  });

  it("says why Run now was refused, and pauses through the backend", async () => {
    backend.jobs = [job()];
    renderView();
    fireEvent.click(await screen.findByTestId("cron-trigger"));
    expect(await screen.findByText(/No scheduler is running, so nothing would run the job now/)).toBeInTheDocument();
    expect(screen.queryByTestId("cron-triggered")).toBeNull();
    fireEvent.click(screen.getByTestId("cron-pause"));
    await waitFor(() => expect(backend.paused).toEqual(["press"]));
  });

  it("lets a person allow a job's runs to reach the network with nobody watching", async () => {
    backend.jobs = [job({ unattended: ["send"] })];
    renderView();
    fireEvent.click(await screen.findByTestId("cron-edit"));
    const grant = await screen.findByTestId("cron-unattended");
    expect(grant).toHaveTextContent("When nobody is watching");
    expect(screen.getByTestId<HTMLInputElement>("cron-unattended-send").checked).toBe(true);
    expect(screen.getByTestId<HTMLInputElement>("cron-unattended-network").checked).toBe(false);
    fireEvent.click(screen.getByTestId("cron-unattended-network"));
    fireEvent.click(screen.getByTestId("cron-save"));
    await waitFor(() => expect(backend.updates).toEqual([["press", { unattended: ["network", "send"] }]]));
  });

  it("shows changing other systems apart from the rest of a job's grant, with what it means", async () => {
    backend.jobs = [job({ unattended: ["send"] })];
    renderView();
    fireEvent.click(await screen.findByTestId("cron-edit"));
    const grant = await screen.findByTestId("cron-unattended");
    const act = within(grant).getByTestId<HTMLInputElement>("cron-unattended-act");
    expect(act.checked).toBe(false);
    const apart = act.closest(".grant-act");
    expect(apart).not.toBeNull();
    expect(apart).toHaveTextContent("Changes other systems");
    expect(apart).toHaveTextContent(/remote MCP servers not marked read-only/);
    for (const risk of ["send", "write", "run", "network"]) {
      expect(apart).not.toContainElement(within(grant).getByTestId(`cron-unattended-${risk}`));
    }
    fireEvent.click(act);
    fireEvent.click(screen.getByTestId("cron-save"));
    await waitFor(() => expect(backend.updates).toEqual([["press", { unattended: ["send", "act"] }]]));
  });
});
