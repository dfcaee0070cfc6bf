import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import type { Approval } from "../../api";
import { ApprovalCard } from "./ApprovalCard";

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return { ...errors, api: { listAgents: async () => [] }, runtimeApi: { listSwarms: async () => [] } };
});

const call = {
  id: "a1",
  runId: "r1",
  agentId: "eng",
  callId: "c1",
  tool: "cli_exec",
  arguments: '{"command": "npm", "args": ["test"]}',
  risk: "run",
  status: "pending",
  forRun: false,
  decidedBy: null,
  createdAt: "2026-12-07T10:00:00Z",
  decidedAt: null,
} as Approval;

function show(approval: Approval) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <ApprovalCard approval={approval} agentName="Engineer" />
    </QueryClientProvider>,
  );
}

describe("a call waiting for the person", () => {
  it("offers once, for this run, or deny where the program is confined", () => {
    show({ ...call, unconfined: null });
    expect(screen.getByTestId("approval-allow-run")).toBeInTheDocument();
    expect(screen.queryByTestId("approval-unconfined")).not.toBeInTheDocument();
  });

  it("says what an unconfined program could reach, and offers only once or deny", () => {
    show({ ...call, unconfined: "Windows has no sandbox in Colmena yet: …" });
    expect(screen.getByTestId("approval-unconfined")).toHaveTextContent(/runs as you\. It can read and change every file/);
    expect(screen.queryByTestId("approval-allow-run")).not.toBeInTheDocument();
    expect(screen.getByTestId("approval-allow-once")).toBeInTheDocument();
    expect(screen.getByTestId("approval-deny")).toBeInTheDocument();
  });
});
