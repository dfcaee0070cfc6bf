import { describe, expect, it } from "vitest";

import type { RunEvent } from "../../api";
import { IDLE, applyRunEvent, memberText, type RunView } from "./runState";

const run = (events: RunEvent[]): RunView => events.reduce(applyRunEvent, IDLE);
const usage = { promptTokens: 10, completionTokens: 5 };

describe("a streamed run folded from its events", () => {
  it("keeps each member's text and tool calls, with results matched by call id", () => {
    const view = run([
      { type: "started", runId: "top", kind: "swarm", targetId: "prensa" },
      { type: "agent_step", runId: "top", agentId: "jefa", step: 1 },
      { type: "text_delta", runId: "top", agentId: "jefa", text: "I will " },
      { type: "text_delta", runId: "top", agentId: "jefa", text: "ask." },
      { type: "tool_call", runId: "top", agentId: "jefa", callId: "c1", name: "delegate_task", arguments: "{}" },
      { type: "started", runId: "child", kind: "agent", targetId: "investigadora" },
      { type: "agent_step", runId: "child", agentId: "investigadora", step: 1 },
      { type: "text_delta", runId: "child", agentId: "investigadora", text: "Facts." },
      { type: "agent_output", runId: "child", agentId: "investigadora", text: "Facts." },
      { type: "tool_result", runId: "top", agentId: "jefa", callId: "c1", name: "delegate_task", ok: true, denied: false, output: "Facts." },
      { type: "agent_step", runId: "top", agentId: "jefa", step: 2 },
      { type: "text_delta", runId: "top", agentId: "jefa", text: "Done." },
    ]);
    expect(view.runId).toBe("top");
    expect(view.phase).toBe("running");
    // Named by what it runs (the swarm), not by a delegated child's agent.
    expect([view.kind, view.targetId]).toEqual(["swarm", "prensa"]);
    expect(view.members.map((m) => [m.agentId, m.status])).toEqual([
      ["jefa", "working"],
      ["investigadora", "done"],
    ]);
    const jefa = view.members[0];
    expect(jefa?.entries).toEqual([
      { kind: "text", text: "I will ask." },
      { kind: "tool", callId: "c1", name: "delegate_task", arguments: "{}", ok: true, denied: false, output: "Facts." },
      { kind: "text", text: "Done." },
    ]);
    expect(jefa?.step).toBe(2);
    expect(memberText(jefa!)).toBe("I will ask.\n\nDone.");
  });

  it("a call that waits for the person carries its approval until the gate's answer arrives", () => {
    const approval = {
      id: "ap1",
      runId: "r",
      agentId: "eng",
      callId: "c9",
      tool: "cli_exec",
      arguments: '{"command":"ls"}',
      risk: "run",
      status: "pending",
      forRun: false,
      decidedBy: null,
      createdAt: "2026-12-01T10:00:00Z",
      decidedAt: null,
      unconfined: null,
    } as const;
    const asking = run([
      { type: "started", runId: "r", kind: "agent", targetId: "eng" },
      { type: "agent_step", runId: "r", agentId: "eng", step: 1 },
      { type: "tool_call", runId: "r", agentId: "eng", callId: "c9", name: "cli_exec", arguments: '{"command":"ls"}' },
      { type: "approval_requested", runId: "r", approval },
    ]);
    const waiting = asking.members[0]?.entries[0];
    expect(waiting).toMatchObject({ kind: "tool", callId: "c9", approval: { status: "pending" } });
    expect(waiting && "ok" in waiting ? waiting.ok : undefined).toBeUndefined();
    const denied = [
      { type: "approval_decided", runId: "r", approval: { ...approval, status: "denied", decidedBy: "me" } },
      { type: "tool_result", runId: "r", agentId: "eng", callId: "c9", name: "cli_exec", ok: false, denied: true, output: "cli_exec was not run" },
    ] as const satisfies RunEvent[];
    const after = denied.reduce(applyRunEvent, asking);
    expect(after.members[0]?.entries[0]).toMatchObject({ ok: false, denied: true, approval: { status: "denied" } });
  });

  it("a new step starts a new paragraph even without a tool call", () => {
    const view = run([
      { type: "started", runId: "r", kind: "agent", targetId: "a" },
      { type: "agent_step", runId: "r", agentId: "a", step: 1 },
      { type: "text_delta", runId: "r", agentId: "a", text: "one" },
      { type: "agent_step", runId: "r", agentId: "a", step: 2 },
      { type: "text_delta", runId: "r", agentId: "a", text: "two" },
    ]);
    expect(view.members[0]?.entries.map((e) => (e.kind === "text" ? e.text : e.name))).toEqual(["one", "two"]);
  });

  it("ends with the top run's status, output and usage; a child's end does not end the run", () => {
    const view = run([
      { type: "started", runId: "top", kind: "swarm", targetId: "s" },
      { type: "started", runId: "child", kind: "agent", targetId: "b" },
      { type: "finished", runId: "child", status: "failed", output: null, usage },
    ]);
    expect(view.phase).toBe("running");
    expect(view.members[0]).toMatchObject({ agentId: "b", status: "failed" });
    const ended = applyRunEvent(view, { type: "finished", runId: "top", status: "completed", output: "All done", usage });
    expect(ended).toMatchObject({ phase: "completed", output: "All done", usage });
  });

  it("an error names the member at fault, from the event, the child run or the error's details", () => {
    const error = (agentId?: string) => ({
      code: "precondition" as const,
      message: "no longer exists",
      details: agentId ? { reason: "unknown_agent", agentId } : null,
    });
    const view = run([
      { type: "started", runId: "top", kind: "swarm", targetId: "s" },
      { type: "started", runId: "child", kind: "agent", targetId: "b" },
      { type: "error", runId: "child", agentId: null, error: error() },
      { type: "error", runId: "top", agentId: null, error: error("ghost") },
    ]);
    expect(view.members.map((m) => [m.agentId, m.status])).toEqual([
      ["b", "failed"],
      ["ghost", "failed"],
    ]);
    expect(view.error?.message).toBe("no longer exists");
  });
});
