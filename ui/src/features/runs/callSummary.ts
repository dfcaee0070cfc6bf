// A tool call as the person deciding on it reads it (issue 37: approvals
// as the command line and folder they will run): a program call is its
// command line, a file call the path it touches, a fetch its address —
// made from the arguments exactly, never from what the model says the call
// does. A call with an argument the summary would not show (or arguments
// that are not an object) gets no summary: the card then shows the raw
// arguments, so nothing is hidden behind a friendlier line.

export type CallKind = "run" | "write" | "delete" | "move" | "fetch" | "commit";

export interface CallSummary {
  kind: CallKind;
  /** What runs or is touched, as one line (a command line, a path). */
  line: string;
  /** For a file written: how many characters go in it. */
  size?: number;
}

type Args = Record<string, unknown>;

/** `word` as a POSIX shell would need it quoted: as it is when safe. */
export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

const text = (value: unknown): value is string => typeof value === "string";
const texts = (value: unknown): value is string[] => Array.isArray(value) && value.every(text);

/** Only these keys, with these required. */
function shaped(args: Args, allowed: string[], required: string[]): boolean {
  return Object.keys(args).every((k) => allowed.includes(k)) && required.every((k) => k in args);
}

export function callSummary(tool: string, raw: string): CallSummary | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const args = parsed as Args;
  switch (tool) {
    case "cli_exec": {
      const rest = args.args ?? [];
      if (!shaped(args, ["command", "args", "timeout_seconds"], ["command"]) || !text(args.command) || !texts(rest)) return null;
      return { kind: "run", line: [args.command, ...rest].map(shellQuote).join(" ") };
    }
    case "git_commit": {
      const paths = args.paths ?? [];
      if (!shaped(args, ["message", "paths"], ["message"]) || !text(args.message) || !texts(paths)) return null;
      const tail = paths.length ? ["--", ...paths] : [];
      return { kind: "commit", line: ["git", "commit", "-m", args.message, ...tail].map(shellQuote).join(" ") };
    }
    case "fs_write":
      if (!shaped(args, ["path", "content"], ["path", "content"]) || !text(args.path) || !text(args.content)) return null;
      return { kind: "write", line: args.path, size: [...args.content].length };
    case "fs_delete":
      if (!shaped(args, ["path"], ["path"]) || !text(args.path)) return null;
      return { kind: "delete", line: args.path };
    case "fs_move":
      if (!shaped(args, ["from", "to"], ["from", "to"]) || !text(args.from) || !text(args.to)) return null;
      return { kind: "move", line: `${args.from} → ${args.to}` };
    case "web_fetch":
      if (!shaped(args, ["url", "max_bytes", "timeout_seconds"], ["url"]) || !text(args.url)) return null;
      return { kind: "fetch", line: args.url };
    default:
      return null;
  }
}
