// The swarm being edited in the builder, as plain data: members in order,
// their roles, where their nodes sit; the graph drawn from it — which
// edges a strategy implies; and what keeps it from being saved, checked
// the way the backend checks it (H7) so that Save can say why it is off
// and offer the one-click fix. Pure functions, shared by the view and tests.

import type { MemberRole, NewSwarm, Strategy, Swarm } from "../../api";

export type Point = { x: number; y: number };

export interface DraftMember {
  agentId: string;
  role: MemberRole;
}

export interface SwarmDraft {
  name: string;
  description: string;
  strategy: Strategy;
  members: DraftMember[];
  layout: Record<string, Point>;
}

export const EMPTY_DRAFT: SwarmDraft = { name: "", description: "", strategy: "sequential", members: [], layout: {} };

const GAP_X = 215;
const GAP_Y = 120;
/** How close two nodes may sit before they overlap (a node is ~180×80). */
const CLEAR_X = 195;
const CLEAR_Y = 90;

/** Where a member's node goes when it has not been placed by hand: the
 * graph flows top to bottom, which fits the builder's column. */
export function autoPosition(draft: SwarmDraft, agentId: string): Point {
  const index = Math.max(0, draft.members.findIndex((m) => m.agentId === agentId));
  switch (draft.strategy) {
    case "sequential":
      return { x: 0, y: index * GAP_Y };
    case "parallel":
      return { x: index * GAP_X, y: 0 };
    case "hierarchical": {
      const member = draft.members[index];
      const others = draft.members.filter((m) => m.role !== "orchestrator");
      if (member?.role === "orchestrator") return { x: (Math.max(0, others.length - 1) * GAP_X) / 2, y: 0 };
      const at = others.findIndex((m) => m.agentId === agentId);
      return { x: at * GAP_X, y: GAP_Y * 1.4 };
    }
  }
}

export function draftFrom(swarm: Swarm): SwarmDraft {
  const layout: Record<string, Point> = {};
  const saved = (swarm.layout ?? {}) as Record<string, unknown>;
  for (const [id, value] of Object.entries(saved)) {
    const p = value as Partial<Point> | null;
    if (p && typeof p.x === "number" && typeof p.y === "number") layout[id] = { x: p.x, y: p.y };
  }
  return {
    name: swarm.name,
    description: swarm.description,
    strategy: swarm.strategy,
    members: [...swarm.members]
      .sort((a, b) => a.orderIndex - b.orderIndex)
      .map((m) => ({ agentId: m.agentId, role: m.role })),
    layout,
  };
}

function overlaps(draft: SwarmDraft, agentId: string, p: Point): boolean {
  return draft.members.some((m) => {
    if (m.agentId === agentId) return false;
    const q = positionOf(draft, m.agentId);
    return Math.abs(q.x - p.x) < CLEAR_X && Math.abs(q.y - p.y) < CLEAR_Y;
  });
}

export function positionOf(draft: SwarmDraft, agentId: string): Point {
  return draft.layout[agentId] ?? autoPosition(draft, agentId);
}

/** Adds a member where it was dropped, or where the strategy puts it —
 * moved along until it overlaps no node placed before. */
export function addMember(draft: SwarmDraft, agentId: string, at?: Point): SwarmDraft {
  if (draft.members.some((m) => m.agentId === agentId)) return draft;
  const makeOrchestrator = draft.strategy === "hierarchical" && !draft.members.some((m) => m.role === "orchestrator");
  const members = [...draft.members, { agentId, role: (makeOrchestrator ? "orchestrator" : "member") as MemberRole }];
  const added = { ...draft, members };
  if (at) return { ...added, layout: { ...draft.layout, [agentId]: at } };
  let spot = autoPosition(added, agentId);
  if (!overlaps(added, agentId, spot)) return added;
  for (let tries = 0; tries < 50 && overlaps(added, agentId, spot); tries++) {
    spot = draft.strategy === "sequential" ? { x: spot.x, y: spot.y + GAP_Y } : { x: spot.x + GAP_X, y: spot.y };
  }
  return { ...added, layout: { ...draft.layout, [agentId]: spot } };
}

export function removeMember(draft: SwarmDraft, agentId: string): SwarmDraft {
  const layout = { ...draft.layout };
  delete layout[agentId];
  return { ...draft, members: draft.members.filter((m) => m.agentId !== agentId), layout };
}

/** Moves a member one place earlier (-1) or later (+1) in the order. */
export function moveMember(draft: SwarmDraft, agentId: string, by: -1 | 1): SwarmDraft {
  const from = draft.members.findIndex((m) => m.agentId === agentId);
  const to = from + by;
  if (from < 0 || to < 0 || to >= draft.members.length) return draft;
  const members = [...draft.members];
  const [moved] = members.splice(from, 1);
  if (moved) members.splice(to, 0, moved);
  return { ...draft, members };
}

/** Makes `agentId` the one orchestrator (or a plain member again). */
export function setOrchestrator(draft: SwarmDraft, agentId: string, on: boolean): SwarmDraft {
  const members = draft.members.map((m): DraftMember => {
    if (m.agentId === agentId) return { ...m, role: on ? "orchestrator" : "member" };
    return on ? { ...m, role: "member" } : m;
  });
  return { ...draft, members };
}

/** Switching strategy keeps members; roles only mean something in a hierarchy. */
export function setStrategy(draft: SwarmDraft, strategy: Strategy): SwarmDraft {
  if (strategy === "hierarchical") {
    const hasLead = draft.members.some((m) => m.role === "orchestrator");
    const members = draft.members.map((m, i): DraftMember => (!hasLead && i === 0 ? { ...m, role: "orchestrator" } : m));
    return { ...draft, strategy, members, layout: {} };
  }
  return { ...draft, strategy, members: draft.members.map((m) => ({ ...m, role: "member" })), layout: {} };
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** `unrunnable`: the swarm cannot run as drawn; shown greyed, never as a hand-off. */
  kind: "flow" | "delegates" | "unrunnable";
}

export const INPUT_NODE = "__input";
export const OUTPUT_NODE = "__output";

/** The edges a strategy implies between input, members and output. A swarm
 * that cannot run (`runnable` false, or a hierarchy without an orchestrator)
 * gets only unrunnable edges: nothing reaches the result. */
export function edgesFor(draft: SwarmDraft, runnable = true): GraphEdge[] {
  const ids = draft.members.map((m) => m.agentId);
  if (ids.length === 0) return [];
  const edge = (source: string, target: string, kind: GraphEdge["kind"] = "flow"): GraphEdge => ({
    id: `${source}->${target}`,
    source,
    target,
    kind: runnable ? kind : "unrunnable",
  });
  switch (draft.strategy) {
    case "sequential": {
      const chain = [INPUT_NODE, ...ids, OUTPUT_NODE];
      return chain.slice(1).map((id, i) => edge(chain[i] ?? INPUT_NODE, id));
    }
    case "parallel":
      return [...ids.map((id) => edge(INPUT_NODE, id)), ...ids.map((id) => edge(id, OUTPUT_NODE))];
    case "hierarchical": {
      const lead = draft.members.find((m) => m.role === "orchestrator")?.agentId;
      if (!lead) return ids.map((id) => edge(INPUT_NODE, id, "unrunnable"));
      return [
        edge(INPUT_NODE, lead),
        edge(lead, OUTPUT_NODE),
        ...ids.filter((id) => id !== lead).map((id) => edge(lead, id, "delegates")),
      ];
    }
  }
}

/** What the backend is sent when the draft is saved. */
export function toInput(draft: SwarmDraft): NewSwarm {
  const layout: Record<string, Point> = {};
  for (const m of draft.members) layout[m.agentId] = positionOf(draft, m.agentId);
  return {
    name: draft.name,
    description: draft.description,
    strategy: draft.strategy,
    members: draft.members.map((m, i) => ({ agentId: m.agentId, orderIndex: i, role: m.role })),
    layout,
  };
}

export function sameDraft(a: SwarmDraft, b: SwarmDraft): boolean {
  return JSON.stringify(toInput(a)) === JSON.stringify(toInput(b));
}

// ---------- what keeps a draft from being saved ----------

/** A one-click repair for a problem. */
export type DraftFix =
  | { kind: "makeOrchestrator"; agentId: string }
  | { kind: "keepOneOrchestrator"; agentId: string }
  | { kind: "clearOrchestrators" }
  | { kind: "removeMissing"; agentIds: string[] };

/** The backend's reason codes for what it refuses on save (H7). */
export const PROBLEM_REASONS = [
  "required",
  "too_long",
  "control_characters",
  "no_letters",
  "no_members",
  "unknown_agents",
  "no_orchestrator",
  "several_orchestrators",
  "orchestrator_not_hierarchical",
] as const;

export interface DraftProblem {
  field: "name" | "members";
  /** The backend's reason code for the same problem. */
  reason: (typeof PROBLEM_REASONS)[number];
  /** The agents it is about (unknown ones, the only orchestrator…). */
  agentIds?: string[];
  fix?: DraftFix;
}

const NAME_MAX_CHARS = 80;

/** The backend's checks on save (name, members against the strategy), in
 * its order. `known` is the set of agent ids that exist; without it the
 * members are not checked for existence. Never stricter than the backend:
 * a name is only said to have no letters when it is plain ASCII. */
export function problemsOf(draft: SwarmDraft, known?: ReadonlySet<string> | null): DraftProblem[] {
  const problems: DraftProblem[] = [];
  const name = draft.name.trim();
  if (name === "") problems.push({ field: "name", reason: "required" });
  else if ([...name].length > NAME_MAX_CHARS) problems.push({ field: "name", reason: "too_long" });
  else if (/\p{Cc}/u.test(name)) problems.push({ field: "name", reason: "control_characters" });
  else if (!/[A-Za-z0-9]/.test(name) && /^[\x20-\x7e]*$/.test(name)) problems.push({ field: "name", reason: "no_letters" });

  const members = draft.members;
  if (members.length === 0) problems.push({ field: "members", reason: "no_members" });
  const missing = known ? members.map((m) => m.agentId).filter((id) => !known.has(id)) : [];
  if (missing.length > 0) {
    problems.push({ field: "members", reason: "unknown_agents", agentIds: missing, fix: { kind: "removeMissing", agentIds: missing } });
  }
  const leads = members.filter((m) => m.role === "orchestrator").map((m) => m.agentId);
  if (draft.strategy === "hierarchical") {
    const first = members.find((m) => !missing.includes(m.agentId))?.agentId;
    if (leads.length === 0 && members.length > 0) {
      problems.push({ field: "members", reason: "no_orchestrator", fix: first ? { kind: "makeOrchestrator", agentId: first } : undefined });
    } else if (leads.length > 1) {
      const keep = leads[0] ?? "";
      problems.push({ field: "members", reason: "several_orchestrators", agentIds: leads, fix: { kind: "keepOneOrchestrator", agentId: keep } });
    } else if (leads.length === 1 && members.length < 2) {
      problems.push({ field: "members", reason: "no_members", agentIds: leads });
    }
  } else if (leads.length > 0) {
    problems.push({ field: "members", reason: "orchestrator_not_hierarchical", fix: { kind: "clearOrchestrators" } });
  }
  return problems;
}

/** Whether the members, as they are, make a swarm that can run. */
export function isRunnable(draft: SwarmDraft, known?: ReadonlySet<string> | null): boolean {
  return problemsOf(draft, known).every((p) => p.field !== "members");
}

export function applyFix(draft: SwarmDraft, fix: DraftFix): SwarmDraft {
  switch (fix.kind) {
    case "makeOrchestrator":
    case "keepOneOrchestrator":
      return setOrchestrator(draft, fix.agentId, true);
    case "clearOrchestrators":
      return { ...draft, members: draft.members.map((m) => ({ ...m, role: "member" })) };
    case "removeMissing":
      return fix.agentIds.reduce(removeMember, draft);
  }
}
