import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ReactFlowProvider } from "@xyflow/react";
import { beforeAll, describe, expect, it, vi } from "vitest";

import type { RunEvent } from "../../api";
import { IDLE, applyRunEvent } from "../runs/runState";
import { EMPTY_DRAFT, addMember, type SwarmDraft } from "./draft";
import { liveGraph } from "./liveGraph";
import { SwarmGraph } from "./SwarmGraph";

// jsdom has no layout: React Flow needs these to mount.
beforeAll(() => {
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  (globalThis as { DOMMatrixReadOnly?: unknown }).DOMMatrixReadOnly ??= class {
    m22 = 1;
    constructor(transform?: string) {
      const scale = transform?.match(/scale\(([\d.]+)\)/)?.[1];
      this.m22 = scale ? Number(scale) : 1;
    }
  };
});

const press = ["jefa", "investigadora", "redactora"].reduce<SwarmDraft>((d, id) => addMember(d, id), {
  ...EMPTY_DRAFT,
  name: "Prensa",
  strategy: "hierarchical",
});
const names = { jefa: "Jefa", investigadora: "Investigadora", redactora: "Redactora" };

const events: RunEvent[] = [
  { type: "started", runId: "top", kind: "swarm", targetId: "prensa" },
  { type: "agent_step", runId: "top", agentId: "jefa", step: 1 },
  { type: "started", runId: "child", kind: "agent", targetId: "investigadora" },
  { type: "agent_step", runId: "child", agentId: "investigadora", step: 1 },
];

describe("the swarm graph", () => {
  it("on the Run tab (no descriptions, no actions) lights the member at work, by name, with the id as its tooltip", () => {
    const live = liveGraph(press, events.reduce(applyRunEvent, IDLE));
    render(
      <ReactFlowProvider>
        <div style={{ width: 600, height: 400 }}>
          <SwarmGraph draft={press} names={names} live={live} runnable />
        </div>
      </ReactFlowProvider>,
    );
    const researcher = screen.getByTestId("node-investigadora");
    expect(researcher).toHaveAttribute("data-state", "working");
    expect(researcher).toHaveAttribute("title", "Investigadora · investigadora");
    expect(researcher).toHaveTextContent("Investigadora");
    expect(screen.getByTestId("node-detail-investigadora")).toHaveTextContent("Working…");
    expect(screen.getByTestId("node-jefa")).toHaveAttribute("data-state", "waiting");
    expect(screen.getByTestId("node-redactora")).toHaveAttribute("data-state", "idle");
    // Nothing to edit during a run.
    expect(screen.queryByTestId("remove-jefa")).toBeNull();
    expect(screen.queryByTestId("lead-jefa")).toBeNull();
  });

  it("in the builder, a node carries what the member list offered: take out, lead, reorder", async () => {
    const actions = { onRemove: vi.fn(), onToggleOrchestrator: vi.fn(), onReorder: vi.fn() };
    const { rerender } = render(
      <ReactFlowProvider>
        <SwarmGraph draft={press} names={names} runnable editable actions={actions} />
      </ReactFlowProvider>,
    );
    await userEvent.click(screen.getByTestId("lead-investigadora"));
    expect(actions.onToggleOrchestrator).toHaveBeenCalledWith("investigadora");
    await userEvent.click(screen.getByTestId("remove-redactora"));
    expect(actions.onRemove).toHaveBeenCalledWith("redactora");
    // Order matters outside a hierarchy: earlier / later on each node.
    rerender(
      <ReactFlowProvider>
        <SwarmGraph draft={{ ...press, strategy: "sequential", members: press.members.map((m) => ({ ...m, role: "member" })) }} names={names} runnable editable actions={actions} />
      </ReactFlowProvider>,
    );
    expect(screen.getByTestId("up-jefa")).toBeDisabled();
    await userEvent.click(screen.getByTestId("down-jefa"));
    expect(actions.onReorder).toHaveBeenCalledWith("jefa", 1);
  });
});
