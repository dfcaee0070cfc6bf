import { describe, expect, it } from "vitest";

import type { Author } from "../../api";
import { CLAUDE_PRESET, argv, initialWake, wakePayload } from "./wakeCommand";

const role = (over: Partial<Author>): Author =>
  ({
    id: "fuera",
    name: "Fuera",
    kind: "role",
    agentId: null,
    wakeCommand: null,
    wakeTimeoutSeconds: null,
    ...over,
  }) as Author;

describe("wake command drafts", () => {
  it("start from how the role is woken", () => {
    expect(initialWake().mode).toBe("agent");
    expect(initialWake(role({ agentId: "ambrosio" })).mode).toBe("agent");
    expect(initialWake(role({})).mode).toBe("poll");
    const draft = initialWake(role({ wakeCommand: ["claude", "-p", "a b"], wakeTimeoutSeconds: 90 }));
    expect(draft).toEqual({ mode: "command", program: "claude", args: "-p\na b", timeout: "90" });
  });

  it("keep every argument as typed, one a line, with no shell splitting", () => {
    const draft = { mode: "command" as const, program: " claude ", args: "-p\nRead it; $(not run) `nor this`\n\n--resume\nabc", timeout: "" };
    expect(argv(draft)).toEqual(["claude", "-p", "Read it; $(not run) `nor this`", "--resume", "abc"]);
    expect(wakePayload(draft, "ambrosio")).toEqual({ agentId: null, wakeCommand: argv(draft), wakeTimeoutSeconds: null });
  });

  it("send an agent or nothing for the other modes", () => {
    const base = { program: "claude", args: "-p", timeout: "60" };
    expect(wakePayload({ ...base, mode: "agent" }, "ambrosio")).toEqual({ agentId: "ambrosio", wakeCommand: null, wakeTimeoutSeconds: null });
    expect(wakePayload({ ...base, mode: "poll" }, "ambrosio")).toEqual({ agentId: null, wakeCommand: null, wakeTimeoutSeconds: null });
    expect(wakePayload({ ...base, mode: "command" }, "").wakeTimeoutSeconds).toBe(60);
  });

  it("offer Claude Code as separate argv items", () => {
    expect(CLAUDE_PRESET.args).toContain("--resume");
    expect(CLAUDE_PRESET.args.every((a) => !a.includes("--resume "))).toBe(true);
  });
});
