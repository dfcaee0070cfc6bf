import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import { PendingApprovals } from "./PendingApprovals";

// A swarm run ("prensa") delegated to an agent whose tool call waits.
const runs: Record<string, object> = {
  top: { id: "top", kind: "swarm", targetId: "prensa", parentRunId: null, startedAt: "2026-11-03T10:05:00Z" },
  child: { id: "child", kind: "agent", targetId: "investigadora", parentRunId: "top", startedAt: "2026-11-03T10:06:00Z" },
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {
      listAgents: async () => [{ id: "investigadora", name: "Investigadora Principal", persona: null }],
    },
    runtimeApi: {
      listSwarms: async () => [{ id: "prensa", name: "Equipo de prensa" }],
      getRun: async (id: string) => ({ run: runs[id], steps: [], children: [] }),
      pendingApprovals: async () => [
        { id: "a1", runId: "child", agentId: "investigadora", callId: "c1", tool: "cli_exec", arguments: "{}", risk: "run", status: "pending" },
      ],
    },
  };
});

describe("the app-wide stack of waiting tool calls", () => {
  it("names the agent and the run the call belongs to — the swarm that started it — never their ids", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <PendingApprovals />
      </QueryClientProvider>,
    );
    const origin = await screen.findByTestId("approval-origin");
    expect(origin).toHaveTextContent(/^Run of Equipo de prensa, started /);
    expect(screen.getByTestId("copy-run-id")).toHaveAttribute("title", "top");
    expect(await screen.findByText("Investigadora Principal wants to use Run a command")).toBeInTheDocument();
    expect(screen.getByTestId("pending-approvals")).not.toHaveTextContent("investigadora");
  });
});
