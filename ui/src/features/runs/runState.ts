// What a streamed run looks like so far, rebuilt from its events: who is
// working, what each member wrote and which tools it called, and how the
// run ended. A pure reducer, so the run panel, the chat and the tests share it.

import type { AppError, Approval, RunEvent, RunKind, RunStatus, Usage } from "../../api";

export interface TextEntry {
  kind: "text";
  text: string;
}

export interface ToolEntry {
  kind: "tool";
  callId: string;
  name: string;
  arguments: string;
  /** Absent until the result arrives. */
  ok?: boolean;
  /** The permission gate refused it: it did not run. */
  denied?: boolean;
  output?: string;
  /** The question put to the person, while it waits and after. */
  approval?: Approval;
}

export type Entry = TextEntry | ToolEntry;

export type MemberStatus = "working" | "done" | "failed";

export interface MemberProgress {
  agentId: string;
  status: MemberStatus;
  step: number;
  entries: Entry[];
  output: string | null;
  error: AppError | null;
  /** The next text starts a new paragraph (a new step began). */
  freshStep: boolean;
}

export type RunPhase = "idle" | "running" | RunStatus;

export interface RunView {
  runId: string | null;
  /** What the run runs — an agent or a swarm — to name it by. */
  kind: RunKind | null;
  targetId: string | null;
  /** When it started: when the app saw it start, then the record's time. */
  startedAt: string | null;
  phase: RunPhase;
  /** Members in the order they first did something. */
  members: MemberProgress[];
  output: string | null;
  error: AppError | null;
  usage: Usage | null;
  /** Which agent each (child) run belongs to. */
  runAgents: Record<string, string>;
}

export const IDLE: RunView = {
  runId: null,
  kind: null,
  targetId: null,
  startedAt: null,
  phase: "idle",
  members: [],
  output: null,
  error: null,
  usage: null,
  runAgents: {},
};

function withMember(view: RunView, agentId: string, change: (m: MemberProgress) => MemberProgress): RunView {
  const index = view.members.findIndex((m) => m.agentId === agentId);
  const current: MemberProgress = view.members[index] ?? {
    agentId,
    status: "working",
    step: 0,
    entries: [],
    output: null,
    error: null,
    freshStep: true,
  };
  const next = change(current);
  const members = index >= 0 ? view.members.map((m, i) => (i === index ? next : m)) : [...view.members, next];
  return { ...view, members };
}

function memberStatus(status: RunStatus): MemberStatus {
  return status === "completed" ? "done" : status === "running" ? "working" : "failed";
}

export function applyRunEvent(view: RunView, event: RunEvent): RunView {
  switch (event.type) {
    case "started": {
      const runAgents =
        event.kind === "agent" ? { ...view.runAgents, [event.runId]: event.targetId } : view.runAgents;
      if (view.runId === null) {
        return { ...view, runId: event.runId, kind: event.kind, targetId: event.targetId, phase: "running", runAgents };
      }
      return { ...view, runAgents };
    }
    case "agent_step":
      return withMember(view, event.agentId, (m) => ({ ...m, status: "working", step: event.step, freshStep: true }));
    case "text_delta":
      return withMember(view, event.agentId, (m) => {
        const last = m.entries[m.entries.length - 1];
        if (last?.kind === "text" && !m.freshStep) {
          return { ...m, entries: [...m.entries.slice(0, -1), { kind: "text", text: last.text + event.text }] };
        }
        return { ...m, freshStep: false, entries: [...m.entries, { kind: "text", text: event.text }] };
      });
    case "tool_call":
      return withMember(view, event.agentId, (m) => ({
        ...m,
        freshStep: true,
        entries: [...m.entries, { kind: "tool", callId: event.callId, name: event.name, arguments: event.arguments }],
      }));
    case "tool_result":
      return withMember(view, event.agentId, (m) => {
        const at = m.entries.findLastIndex((e) => e.kind === "tool" && e.callId === event.callId);
        if (at < 0) return m;
        const entries = m.entries.map((e, i) => (i === at ? { ...e, ok: event.ok, denied: event.denied, output: event.output } : e));
        return { ...m, entries };
      });
    case "approval_requested":
    case "approval_decided": {
      const { approval } = event;
      return withMember(view, approval.agentId, (m) => {
        const at = m.entries.findLastIndex((e) => e.kind === "tool" && e.callId === approval.callId);
        if (at < 0) return m;
        return { ...m, entries: m.entries.map((e, i) => (i === at ? { ...e, approval } : e)) };
      });
    }
    case "agent_output":
      return withMember(view, event.agentId, (m) => ({ ...m, status: "done", output: event.text }));
    case "error": {
      const named = (event.error.details as { agentId?: unknown } | null | undefined)?.agentId;
      const agent = event.agentId ?? view.runAgents[event.runId] ?? (typeof named === "string" ? named : undefined);
      const marked = agent ? withMember(view, agent, (m) => ({ ...m, status: "failed", error: event.error })) : view;
      return event.runId === view.runId ? { ...marked, error: event.error } : marked;
    }
    case "finished": {
      if (event.runId === view.runId) {
        return { ...view, phase: event.status, output: event.output, usage: event.usage };
      }
      const agent = view.runAgents[event.runId];
      if (!agent) return view;
      return withMember(view, agent, (m) => ({
        ...m,
        status: m.status === "failed" ? "failed" : memberStatus(event.status),
      }));
    }
  }
}

/** The whole text a member wrote, for previews. */
export function memberText(member: MemberProgress): string {
  return member.entries
    .filter((e): e is TextEntry => e.kind === "text")
    .map((e) => e.text)
    .join("\n\n");
}
