import { renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import i18n from "../../i18n";
import { PROBLEM_REASONS, type DraftProblem } from "./draft";
import { useProblemText } from "./problemText";

describe("what keeps a swarm from saving, in words", () => {
  it("has a sentence for every reason the checks give, in both languages", () => {
    for (const lng of ["en", "es"]) {
      for (const reason of PROBLEM_REASONS) {
        expect(i18n.exists(`swarms.blocked.${reason}`, { lng }), `${lng}: ${reason}`).toBe(true);
      }
    }
  });

  it("names agents, and offers the fix by name", async () => {
    await i18n.changeLanguage("en");
    const { result } = renderHook(() => useProblemText({ jefa: "Jefa", inv: "Investigadora" }));
    const text = result.current;
    const problems: DraftProblem[] = [
      { field: "name", reason: "required" },
      { field: "members", reason: "several_orchestrators", agentIds: ["jefa", "inv"] },
    ];
    expect(text.list(problems)).toBe("give the swarm a name; only one member can be the orchestrator (Jefa, Investigadora are)");
    expect(text({ field: "members", reason: "no_members", agentIds: ["jefa"] })).toBe("Jefa needs a member to delegate to");
    expect(text.fixLabel({ kind: "makeOrchestrator", agentId: "jefa" })).toBe("Make Jefa orchestrator");
    expect(text.fixLabel({ kind: "removeMissing", agentIds: ["a", "b"] })).toBe("Take the 2 deleted agents out");
  });
});
