// What the swarm graph shows while a run streams and after it: which member
// is working (the orchestrator waits while someone it delegated to works),
// which edge is the hand-off happening now, which edges the work already
// went along, and how each member ended. Derived from the run's live view
// (runs/runState), so the graph and the run panel never disagree.

import type { RunView } from "../runs/runState";
import { INPUT_NODE, OUTPUT_NODE, edgesFor, type SwarmDraft } from "./draft";

export type NodeRunState = "idle" | "working" | "waiting" | "done" | "failed" | "stopped";
export type EdgeRunState = "idle" | "active" | "done";

export interface LiveGraph {
  /** Per member; members the run has not reached are `idle`. */
  nodes: Record<string, NodeRunState>;
  /** Per edge id (as `edgesFor` names them). */
  edges: Record<string, EdgeRunState>;
  /** The run is still going (idle members may yet be reached). */
  running: boolean;
}

const REACHED: ReadonlySet<NodeRunState> = new Set(["working", "waiting", "done", "failed", "stopped"]);

export function liveGraph(draft: SwarmDraft, view: RunView): LiveGraph {
  const status = new Map(view.members.map((m) => [m.agentId, m.status]));
  const running = view.phase === "running";
  const lead = draft.strategy === "hierarchical" ? draft.members.find((m) => m.role === "orchestrator")?.agentId : undefined;
  const othersWorking = draft.members.some((m) => m.agentId !== lead && status.get(m.agentId) === "working");

  const nodes: Record<string, NodeRunState> = {};
  for (const { agentId } of draft.members) {
    const s = status.get(agentId);
    if (!s) nodes[agentId] = "idle";
    else if (s !== "working") nodes[agentId] = s;
    // The run ended while this member was still at it.
    else if (!running) nodes[agentId] = view.phase === "completed" ? "done" : view.phase === "failed" ? "failed" : "stopped";
    else nodes[agentId] = agentId === lead && othersWorking ? "waiting" : "working";
  }

  const reached = (id: string) => id === INPUT_NODE || REACHED.has(nodes[id] ?? "idle");
  const anyoneElseRan = draft.members.some((m) => m.agentId !== lead && reached(m.agentId));
  const edges: Record<string, EdgeRunState> = {};
  for (const edge of edgesFor(draft)) {
    if (edge.kind === "unrunnable") {
      edges[edge.id] = "idle";
    } else if (edge.target === OUTPUT_NODE) {
      edges[edge.id] = view.phase === "completed" && nodes[edge.source] === "done" ? "done" : "idle";
    } else if (!reached(edge.source) || !reached(edge.target)) {
      edges[edge.id] = "idle";
    } else if (edge.target === lead) {
      // The input reaches the orchestrator once; later steps are answers coming back.
      edges[edge.id] = nodes[edge.target] === "working" && !anyoneElseRan ? "active" : "done";
    } else {
      edges[edge.id] = nodes[edge.target] === "working" ? "active" : "done";
    }
  }
  return { nodes, edges, running };
}
