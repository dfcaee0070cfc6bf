// The resume banner: a resumed run reads "Resuming…" only while it runs;
// once it ends its row goes and the dialog says it was resumed, also when
// the list of resumable runs has not been fetched again yet.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { Run, RunEvent } from "../../api";
import { ResumeBanner } from "./ResumeBanner";

const RUN: Run = {
  id: "run-1",
  kind: "agent",
  targetId: "redactora",
  threadId: null,
  parentRunId: null,
  userId: "owner",
  input: "Write the press release",
  status: "interrupted",
  output: null,
  error: null,
  hasCheckpoint: true,
  usage: { promptTokens: 0, completionTokens: 0 },
  startedAt: "2026-12-01T10:00:00Z",
  finishedAt: null,
};

// The backend, scripted: what is resumable, and a resume the test finishes.
const backend: { resumable: Run[]; finish: (run: Run) => void; emit: (event: RunEvent) => void } = {
  resumable: [],
  finish: () => undefined,
  emit: () => undefined,
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: { listAgents: () => Promise.resolve([{ id: "redactora", name: "Redactora", persona: null }]) },
    canvasApi: { list: async () => [] },
    desktopApi: {},
    runtimeApi: {
      // The list a stale backend still answers: the test decides when it changes.
      resumableRuns: () => Promise.resolve(backend.resumable),
      listSwarms: () => Promise.resolve([]),
      discardRun: () => Promise.resolve(RUN),
      cancelRun: () => Promise.resolve(),
      resumeRun: (_id: string, onEvent: (event: RunEvent) => void) =>
        new Promise<Run>((resolve) => {
          backend.emit = onEvent;
          backend.finish = resolve;
        }),
    },
  };
});

async function renderBanner() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <ResumeBanner />
    </QueryClientProvider>,
  );
  await screen.findByTestId("resume-banner");
}

describe("ResumeBanner", () => {
  beforeEach(() => {
    backend.resumable = [RUN];
  });

  it("reads Resuming only while the resumed run runs, then drops the row", async () => {
    await renderBanner();
    expect(await screen.findByText("Agent Redactora")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("resume-run-1"));

    const dialog = await screen.findByTestId("resume-dialog");
    expect(dialog).toHaveTextContent("Resuming Redactora");
    expect(screen.getByTestId("resume-running")).toHaveTextContent("Resuming…");
    expect(screen.queryByTestId("resume-run-1")).not.toBeInTheDocument();

    act(() => backend.emit({ type: "started", runId: "run-1", kind: "agent", targetId: "redactora" }));
    await act(async () => {
      backend.finish({ ...RUN, status: "completed", output: "Done.", finishedAt: "2026-12-02T10:00:00Z" });
      await Promise.resolve();
    });

    expect(screen.getByTestId("resume-dialog")).toHaveTextContent("Resumed Redactora");
    expect(screen.getByTestId("resume-dialog")).not.toHaveTextContent("Resuming");
    // The backend still lists it (not fetched again yet): the row is gone all the same.
    expect(screen.queryByTestId("resumable-run-1")).not.toBeInTheDocument();
    expect(screen.queryByText("Resuming…")).not.toBeInTheDocument();

    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("resume-dialog")).not.toBeInTheDocument();
    expect(screen.queryByTestId("resume-banner")).not.toBeInTheDocument();
  });

  it("keeps the row as Resuming when the dialog is closed mid-run, and offers no second resume", async () => {
    await renderBanner();
    fireEvent.click(await screen.findByTestId("resume-run-1"));
    await screen.findByTestId("resume-dialog");
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.getByTestId("resume-running")).toBeInTheDocument();
    expect(screen.queryByTestId("resume-run-1")).not.toBeInTheDocument();

    await act(async () => {
      backend.finish({ ...RUN, status: "completed", output: "Done." });
      await Promise.resolve();
    });
    expect(screen.queryByTestId("resume-banner")).not.toBeInTheDocument();
  });

  it("titles a resumed run that failed as failed, not as resuming", async () => {
    await renderBanner();
    fireEvent.click(await screen.findByTestId("resume-run-1"));
    await act(async () => {
      backend.finish({ ...RUN, status: "failed", error: { code: "provider", message: "boom", details: null } as never });
      await Promise.resolve();
    });
    expect(screen.getByTestId("resume-dialog")).toHaveTextContent("Redactora failed after resuming");
  });
});
