import { describe, expect, it } from "vitest";

import type { Swarm } from "../../api";
import {
  EMPTY_DRAFT,
  INPUT_NODE,
  OUTPUT_NODE,
  addMember,
  draftFrom,
  edgesFor,
  moveMember,
  positionOf,
  removeMember,
  sameDraft,
  setOrchestrator,
  setStrategy,
  toInput,
} from "./draft";

const draftOf = (strategy: "sequential" | "parallel" | "hierarchical", ids: string[]) =>
  ids.reduce((d, id) => addMember(d, id), { ...EMPTY_DRAFT, name: "S", strategy });

const pairs = (d: ReturnType<typeof draftOf>) => edgesFor(d).map((e) => `${e.source}>${e.target}${e.kind === "delegates" ? "*" : ""}`);

describe("the swarm draft", () => {
  it("draws the edges each strategy implies", () => {
    expect(pairs(draftOf("sequential", ["a", "b"]))).toEqual([`${INPUT_NODE}>a`, "a>b", `b>${OUTPUT_NODE}`]);
    expect(pairs(draftOf("parallel", ["a", "b"]))).toEqual([`${INPUT_NODE}>a`, `${INPUT_NODE}>b`, `a>${OUTPUT_NODE}`, `b>${OUTPUT_NODE}`]);
    expect(pairs(draftOf("hierarchical", ["lead", "a", "b"]))).toEqual([`${INPUT_NODE}>lead`, `lead>${OUTPUT_NODE}`, "lead>a*", "lead>b*"]);
    expect(edgesFor(EMPTY_DRAFT)).toEqual([]);
  });

  it("makes the first member of a hierarchy its orchestrator, and keeps exactly one", () => {
    let d = draftOf("hierarchical", ["a", "b"]);
    expect(d.members.map((m) => m.role)).toEqual(["orchestrator", "member"]);
    d = setOrchestrator(d, "b", true);
    expect(d.members.map((m) => m.role)).toEqual(["member", "orchestrator"]);
    d = setOrchestrator(d, "b", false);
    expect(d.members.every((m) => m.role === "member")).toBe(true);
    // Leaving the hierarchy drops the roles; coming back names a lead again.
    expect(setStrategy(draftOf("hierarchical", ["a", "b"]), "parallel").members.map((m) => m.role)).toEqual(["member", "member"]);
    expect(setStrategy(draftOf("parallel", ["a", "b"]), "hierarchical").members[0]?.role).toBe("orchestrator");
  });

  it("orders, removes and never adds the same agent twice", () => {
    let d = draftOf("sequential", ["a", "b", "c"]);
    d = moveMember(d, "c", -1);
    expect(d.members.map((m) => m.agentId)).toEqual(["a", "c", "b"]);
    expect(moveMember(d, "a", -1)).toBe(d);
    expect(addMember(d, "a")).toBe(d);
    d = removeMember(d, "c");
    expect(toInput(d).members).toEqual([
      { agentId: "a", orderIndex: 0, role: "member" },
      { agentId: "b", orderIndex: 1, role: "member" },
    ]);
  });

  it("places a member added without a drop where no other node is", () => {
    let d = addMember({ ...EMPTY_DRAFT, strategy: "sequential" }, "a", { x: 0, y: 120 });
    d = addMember(d, "b"); // its place in the column is taken by a
    const a = positionOf(d, "a");
    const b = positionOf(d, "b");
    expect(Math.abs(a.x - b.x) >= 195 || Math.abs(a.y - b.y) >= 90).toBe(true);
  });

  it("round-trips through what the backend saves", () => {
    const d = addMember(draftOf("hierarchical", ["lead", "a"]), "b", { x: 10, y: 20 });
    const input = toInput(d);
    const saved: Swarm = {
      id: "s",
      name: input.name,
      description: input.description ?? "",
      strategy: d.strategy,
      enabled: true,
      members: (input.members ?? []).map((m, i) => ({ agentId: m.agentId, orderIndex: i, role: m.role ?? "member" })),
      layout: input.layout ?? {},
      createdAt: "2026-01-01T00:00:00Z",
      updatedAt: "2026-01-01T00:00:00Z",
    };
    expect(sameDraft(draftFrom(saved), d)).toBe(true);
    expect(draftFrom(saved).layout.b).toEqual({ x: 10, y: 20 });
  });
});
