import { describe, expect, it } from "vitest";

import type { RunEvent } from "../../api";
import { IDLE, applyRunEvent, type RunView } from "../runs/runState";
import { EMPTY_DRAFT, INPUT_NODE, OUTPUT_NODE, addMember, setOrchestrator } from "./draft";
import { liveGraph } from "./liveGraph";

const usage = { promptTokens: 1, completionTokens: 1 };
const fold = (events: RunEvent[], from: RunView = IDLE): RunView => events.reduce(applyRunEvent, from);
const draftOf = (strategy: "sequential" | "parallel" | "hierarchical", ids: string[]) =>
  ids.reduce((d, id) => addMember(d, id), { ...EMPTY_DRAFT, name: "S", strategy });

const step = (runId: string, agentId: string): RunEvent => ({ type: "agent_step", runId, agentId, step: 1 });
const output = (runId: string, agentId: string): RunEvent => ({ type: "agent_output", runId, agentId, text: "ok" });
const finished = (runId: string, status: "completed" | "failed" | "cancelled"): RunEvent => ({
  type: "finished",
  runId,
  status,
  output: status === "completed" ? "ok" : null,
  usage,
});

describe("the graph during a run", () => {
  const press = draftOf("hierarchical", ["jefa", "investigadora", "redactora"]);
  const started: RunEvent = { type: "started", runId: "top", kind: "swarm", targetId: "prensa" };
  const delegated: RunEvent[] = [
    started,
    step("top", "jefa"),
    { type: "started", runId: "child", kind: "agent", targetId: "investigadora" },
    step("child", "investigadora"),
  ];

  it("shows nothing lit before a run", () => {
    const live = liveGraph(press, IDLE);
    expect(Object.values(live.nodes)).toEqual(["idle", "idle", "idle"]);
    expect(Object.values(live.edges).every((e) => e === "idle")).toBe(true);
  });

  it("lights the orchestrator first, the input handing the work to it", () => {
    const live = liveGraph(press, fold([started, step("top", "jefa")]));
    expect(live.nodes).toEqual({ jefa: "working", investigadora: "idle", redactora: "idle" });
    expect(live.edges[`${INPUT_NODE}->jefa`]).toBe("active");
    expect(live.edges["jefa->investigadora"]).toBe("idle");
  });

  it("while a delegate works, the orchestrator waits and the hand-off to the delegate is the live edge", () => {
    const live = liveGraph(press, fold(delegated));
    expect(live.nodes).toEqual({ jefa: "waiting", investigadora: "working", redactora: "idle" });
    expect(live.edges["jefa->investigadora"]).toBe("active");
    expect(live.edges[`${INPUT_NODE}->jefa`]).toBe("done");
    expect(live.edges["jefa->redactora"]).toBe("idle");
  });

  it("when the delegate is done the orchestrator works again; the input edge is not replayed", () => {
    const live = liveGraph(press, fold([...delegated, output("child", "investigadora"), finished("child", "completed"), step("top", "jefa")]));
    expect(live.nodes).toEqual({ jefa: "working", investigadora: "done", redactora: "idle" });
    expect(live.edges[`${INPUT_NODE}->jefa`]).toBe("done");
    expect(live.edges["jefa->investigadora"]).toBe("done");
  });

  it("after the run, members that ran are done and the result edge is reached; the one never asked stays idle", () => {
    const view = fold([...delegated, output("child", "investigadora"), finished("child", "completed"), output("top", "jefa"), finished("top", "completed")]);
    const live = liveGraph(press, view);
    expect(live.nodes).toEqual({ jefa: "done", investigadora: "done", redactora: "idle" });
    expect(live.edges[`jefa->${OUTPUT_NODE}`]).toBe("done");
    expect(live.edges["jefa->redactora"]).toBe("idle");
  });

  it("a member cut off by a failure is failed; by a cancel, stopped", () => {
    const failed = fold([...delegated, finished("top", "failed")]);
    expect(liveGraph(press, failed).nodes).toMatchObject({ jefa: "failed", investigadora: "failed" });
    const cancelled = fold([...delegated, finished("top", "cancelled")]);
    expect(liveGraph(press, cancelled).nodes).toMatchObject({ jefa: "stopped", investigadora: "stopped" });
    expect(liveGraph(press, cancelled).edges[`jefa->${OUTPUT_NODE}`]).toBe("idle");
  });

  it("in a chain, the live edge runs from the previous member to the current one", () => {
    const chain = draftOf("sequential", ["a", "b", "c"]);
    const live = liveGraph(chain, fold([started, step("top", "a"), output("top", "a"), step("top", "b")]));
    expect(live.nodes).toEqual({ a: "done", b: "working", c: "idle" });
    expect(live.edges).toEqual({
      [`${INPUT_NODE}->a`]: "done",
      "a->b": "active",
      "b->c": "idle",
      [`c->${OUTPUT_NODE}`]: "idle",
    });
  });

  it("never lights a hierarchy that has no orchestrator", () => {
    const headless = setOrchestrator(press, "jefa", false);
    const live = liveGraph(headless, fold([started, step("top", "jefa")]));
    expect(Object.values(live.edges).every((e) => e === "idle")).toBe(true);
  });
});
