import { describe, expect, it } from "vitest";

import type { Swarm } from "../../api";
import {
  EMPTY_DRAFT,
  INPUT_NODE,
  OUTPUT_NODE,
  addMember,
  applyFix,
  draftFrom,
  edgesFor,
  isRunnable,
  moveMember,
  positionOf,
  problemsOf,
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

  it("draws a hierarchy without an orchestrator as not runnable: no hand-offs, nothing reaches the result", () => {
    const headless = setOrchestrator(draftOf("hierarchical", ["a", "b"]), "a", false);
    const edges = edgesFor(headless);
    expect(edges.length).toBeGreaterThan(0);
    expect(edges.every((e) => e.kind === "unrunnable")).toBe(true);
    expect(edges.some((e) => e.target === OUTPUT_NODE)).toBe(false);
    // Any swarm the checks refuse is drawn the same way.
    expect(edgesFor(draftOf("sequential", ["a", "b"]), false).every((e) => e.kind === "unrunnable")).toBe(true);
  });
});

describe("what keeps a draft from being saved (the backend's checks, mirrored)", () => {
  const reasons = (d: ReturnType<typeof draftOf>, known?: Set<string>) => problemsOf(d, known).map((p) => `${p.field}:${p.reason}`);

  it("a named swarm with members is fine as it is", () => {
    expect(problemsOf(draftOf("sequential", ["a"]))).toEqual([]);
    expect(problemsOf(draftOf("hierarchical", ["lead", "a"]))).toEqual([]);
  });

  it("needs a name the backend accepts", () => {
    expect(reasons({ ...draftOf("sequential", ["a"]), name: "   " })).toEqual(["name:required"]);
    expect(reasons({ ...draftOf("sequential", ["a"]), name: "x".repeat(81) })).toEqual(["name:too_long"]);
    expect(reasons({ ...draftOf("sequential", ["a"]), name: "a\u0007b" })).toEqual(["name:control_characters"]);
    expect(reasons({ ...draftOf("sequential", ["a"]), name: "-- !" })).toEqual(["name:no_letters"]);
    // Letters of any script make an id on the backend: never refused here.
    expect(reasons({ ...draftOf("sequential", ["a"]), name: "Équipe ñ" })).toEqual([]);
  });

  it("needs members, and agents that still exist", () => {
    expect(reasons({ ...EMPTY_DRAFT, name: "S" })).toEqual(["members:no_members"]);
    const d = draftOf("sequential", ["a", "gone"]);
    const [missing] = problemsOf(d, new Set(["a"]));
    expect(missing).toMatchObject({ reason: "unknown_agents", agentIds: ["gone"] });
    expect(missing?.fix && problemsOf(applyFix(d, missing.fix), new Set(["a"]))).toEqual([]);
    expect(reasons(d)).toEqual([]);
  });

  it("a hierarchy without an orchestrator offers to make its first member the orchestrator, which makes it valid", () => {
    const headless = setOrchestrator(draftOf("hierarchical", ["jefa", "investigadora"]), "jefa", false);
    const [problem] = problemsOf(headless);
    expect(problem).toMatchObject({ field: "members", reason: "no_orchestrator", fix: { kind: "makeOrchestrator", agentId: "jefa" } });
    expect(isRunnable(headless)).toBe(false);
    const fixed = applyFix(headless, problem!.fix!);
    expect(problemsOf(fixed)).toEqual([]);
    expect(fixed.members.map((m) => m.role)).toEqual(["orchestrator", "member"]);
    expect(edgesFor(fixed).some((e) => e.kind === "unrunnable")).toBe(false);
  });

  it("an orchestrator needs someone to delegate to; roles only exist in a hierarchy; one orchestrator only", () => {
    expect(reasons(draftOf("hierarchical", ["lead"]))).toEqual(["members:no_members"]);
    const twoLeads = { ...draftOf("hierarchical", ["a", "b"]), members: [{ agentId: "a", role: "orchestrator" as const }, { agentId: "b", role: "orchestrator" as const }] };
    const [several] = problemsOf(twoLeads);
    expect(several?.reason).toBe("several_orchestrators");
    expect(problemsOf(applyFix(twoLeads, several!.fix!))).toEqual([]);
    const crowned = { ...draftOf("parallel", ["a", "b"]), members: [{ agentId: "a", role: "orchestrator" as const }, { agentId: "b", role: "member" as const }] };
    const [stray] = problemsOf(crowned);
    expect(stray?.reason).toBe("orchestrator_not_hierarchical");
    expect(problemsOf(applyFix(crowned, stray!.fix!))).toEqual([]);
  });
});
