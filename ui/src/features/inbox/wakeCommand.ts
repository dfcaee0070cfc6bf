// How a role is woken, as the role dialog edits it: by its agent, by a
// command (a session outside Colmena, e.g. Claude Code), or not at all (it
// polls its inbox itself). The command is a program and a list of
// arguments, kept as a list end to end: no shell ever parses it.

import type { Author } from "../../api";

export type WakeMode = "agent" | "command" | "poll";

export interface WakeDraft {
  mode: WakeMode;
  program: string;
  /** One argument per line, exactly as typed. */
  args: string;
  /** Seconds; empty for the default. */
  timeout: string;
}

/** The default time limit of a wake command, in seconds (core's). */
export const DEFAULT_WAKE_TIMEOUT_SECONDS = 600;

/** The example for Claude Code: each item one argument. */
export const CLAUDE_PRESET: { program: string; args: string[] } = {
  program: "claude",
  args: ["-p", "Read your inbox with the colmena read_inbox tool and handle it", "--resume", "<session-id>"],
};

/** The draft for `role` (a new role: woken by an agent). */
export function initialWake(role?: Author): WakeDraft {
  const command = role?.wakeCommand ?? null;
  const mode: WakeMode = command?.length ? "command" : role && !role.agentId ? "poll" : "agent";
  return {
    mode,
    program: command?.[0] ?? "",
    args: (command ?? []).slice(1).join("\n"),
    timeout: role?.wakeTimeoutSeconds ? String(role.wakeTimeoutSeconds) : "",
  };
}

/** The arguments, one a line; blank lines are dropped. */
export function argList(args: string): string[] {
  return args.split(/\r?\n/).filter((line) => line.trim() !== "");
}

/** The command's argv: the program first, then its arguments. */
export function argv(draft: WakeDraft): string[] {
  const program = draft.program.trim();
  return program ? [program, ...argList(draft.args)] : [];
}

/** What the draft sends on save; `agentId` is the dialog's agent choice. */
export function wakePayload(
  draft: WakeDraft,
  agentId: string,
): { agentId: string | null; wakeCommand: string[] | null; wakeTimeoutSeconds: number | null } {
  if (draft.mode !== "command") {
    return { agentId: draft.mode === "agent" && agentId ? agentId : null, wakeCommand: null, wakeTimeoutSeconds: null };
  }
  const timeout = Number.parseInt(draft.timeout, 10);
  return {
    agentId: null,
    // An empty program is sent as is, so core names the missing program.
    wakeCommand: [draft.program.trim(), ...argList(draft.args)],
    wakeTimeoutSeconds: Number.isFinite(timeout) ? timeout : null,
  };
}
