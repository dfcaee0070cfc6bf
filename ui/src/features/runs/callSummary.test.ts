import { describe, expect, it } from "vitest";

import { callSummary, shellQuote } from "./callSummary";

describe("callSummary", () => {
  it("writes a program call as the command line it runs, quoted as a shell would need", () => {
    expect(callSummary("cli_exec", JSON.stringify({ command: "sh", args: ["-c", "echo 'hi' > a.txt"] }))).toEqual({
      kind: "run",
      line: `sh -c 'echo '\\''hi'\\'' > a.txt'`,
    });
    expect(callSummary("cli_exec", JSON.stringify({ command: "ls", timeout_seconds: 5 }))?.line).toBe("ls");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("a b")).toBe("'a b'");
  });

  it("says nothing when an argument would not be shown, so the raw arguments are", () => {
    expect(callSummary("cli_exec", JSON.stringify({ command: "ls", env: { PATH: "/tmp" } }))).toBeNull();
    expect(callSummary("cli_exec", JSON.stringify({ command: "ls", args: "-la" }))).toBeNull();
    expect(callSummary("cli_exec", "not json")).toBeNull();
    expect(callSummary("cli_exec", "[1]")).toBeNull();
    expect(callSummary("unknown_tool", "{}")).toBeNull();
  });

  it("names the file, the address or the commit a call touches", () => {
    expect(callSummary("fs_write", JSON.stringify({ path: "notes/a.md", content: "héllo" }))).toEqual({ kind: "write", line: "notes/a.md", size: 5 });
    expect(callSummary("fs_move", JSON.stringify({ from: "a", to: "b" }))?.line).toBe("a → b");
    expect(callSummary("web_fetch", JSON.stringify({ url: "https://example.org" }))?.kind).toBe("fetch");
    expect(callSummary("git_commit", JSON.stringify({ message: "Fix it", paths: ["a.rs"] }))?.line).toBe("git commit -m 'Fix it' -- a.rs");
  });
});
