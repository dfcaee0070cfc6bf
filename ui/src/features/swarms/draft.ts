// The swarm being edited in the builder, as plain data: members in order,
// their roles, where their nodes sit; and the graph drawn from it — which
// edges a strategy implies. Pure functions, shared by the view and tests.

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
  kind: "flow" | "delegates";
}

export const INPUT_NODE = "__input";
export const OUTPUT_NODE = "__output";

/** The edges a strategy implies between input, members and output. */
export function edgesFor(draft: SwarmDraft): GraphEdge[] {
  const ids = draft.members.map((m) => m.agentId);
  if (ids.length === 0) return [];
  const edge = (source: string, target: string, kind: GraphEdge["kind"] = "flow"): GraphEdge => ({
    id: `${source}->${target}`,
    source,
    target,
    kind,
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
      if (!lead) return ids.map((id) => edge(INPUT_NODE, id));
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
