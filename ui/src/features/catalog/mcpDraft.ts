// An MCP server as its dialog holds it while a person writes it, and the
// small readings of a server every view of it shares: its command line or
// URL in one line, its state as a badge, the server behind a tool's id.
//
// The draft keeps text as typed (arguments one per line, the time limit as
// a string) and turns into the backend's input only on save, so a half-typed
// field never becomes a request. A stored secret comes back masked: its row
// remembers that a sealed value exists and sends `null` (keep it) unless the
// person typed a new one.

import type { McpServer, McpServerInput, McpServerTransport, McpVar, McpVarInput, Tool } from "../../api";

export type McpKind = "stdio" | "http";

/** An environment variable or header as a row of the dialog. */
export interface VarRow {
  /** React's key for the row (rows are added and removed). */
  key: string;
  name: string;
  /** What was typed; "" for a stored secret that is not retyped. */
  value: string;
  secret: boolean;
  /** The masked value of a secret the backend holds sealed, if any. */
  mask: string | null;
}

export interface McpDraft {
  name: string;
  kind: McpKind;
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  env: VarRow[];
  url: string;
  headers: VarRow[];
  /** Seconds, as typed; "" for the default. */
  timeout: string;
}

let rowCount = 0;
/** A fresh row key (unique in this window). */
export const rowKey = () => `row-${++rowCount}`;

export const emptyRow = (): VarRow => ({ key: rowKey(), name: "", value: "", secret: false, mask: null });

function storedRows(vars: readonly McpVar[]): VarRow[] {
  return vars.map((v) => ({ key: rowKey(), name: v.name, value: v.secret ? "" : v.value, secret: v.secret, mask: v.secret ? v.value : null }));
}

function inputRows(vars: readonly McpVarInput[] | undefined): VarRow[] {
  return (vars ?? []).map((v) => ({ key: rowKey(), name: v.name, value: v.value ?? "", secret: Boolean(v.secret), mask: null }));
}

const EMPTY: McpDraft = { name: "", kind: "stdio", command: "", args: "", cwd: "", env: [], url: "", headers: [], timeout: "" };

/** The draft of a saved server. */
export function draftOfServer(server: McpServer): McpDraft {
  const t = server.transport;
  const base = { ...EMPTY, name: server.name, timeout: String(server.timeoutSeconds) };
  if (t.kind === "stdio") return { ...base, kind: "stdio", command: t.command, args: t.args.join("\n"), cwd: t.cwd ?? "", env: storedRows(t.env) };
  return { ...base, kind: "http", url: t.url, headers: storedRows(t.headers) };
}

/** The draft of an input not saved yet (a preset), or of a new server. */
export function draftOfInput(input?: McpServerInput): McpDraft {
  if (!input) return { ...EMPTY };
  const t = input.transport;
  const base = { ...EMPTY, name: input.name, timeout: input.timeoutSeconds ? String(input.timeoutSeconds) : "" };
  if (t.kind === "stdio")
    return { ...base, kind: "stdio", command: t.command, args: (t.args ?? []).join("\n"), cwd: t.cwd ?? "", env: inputRows(t.env) };
  return { ...base, kind: "http", url: t.url, headers: inputRows(t.headers) };
}

/** The arguments written one per line; blank lines are not arguments. */
export function parseArgs(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => line.trim() !== "");
}

/** A row as sent: a stored secret left blank keeps its sealed value (`null`).
 * Rows with neither a name nor a value are left out. */
export function varInput(row: VarRow): McpVarInput | null {
  const name = row.name.trim();
  if (!name && !row.value) return null;
  const keep = row.secret && row.mask !== null && row.value === "";
  return { name, value: keep ? null : row.value, secret: row.secret };
}

const inputs = (rows: VarRow[]) => rows.map(varInput).filter((v): v is McpVarInput => v !== null);

/** The time limit as sent: `null` (the default) when blank, `"invalid"`
 * when it is not a whole number of seconds (the IPC carries only those; the
 * backend checks the range). */
export function timeoutOf(text: string): number | null | "invalid" {
  const trimmed = text.trim();
  if (!trimmed) return null;
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : "invalid";
}

/** What the backend is given on save. */
export function inputOf(draft: McpDraft, extra: { enabled: boolean; preset: string | null }): McpServerInput {
  const transport: McpServerInput["transport"] =
    draft.kind === "stdio"
      ? { kind: "stdio", command: draft.command, args: parseArgs(draft.args), env: inputs(draft.env), cwd: draft.cwd.trim() || null }
      : { kind: "http", url: draft.url, headers: inputs(draft.headers) };
  const timeout = timeoutOf(draft.timeout);
  return { name: draft.name, transport, enabled: extra.enabled, timeoutSeconds: timeout === "invalid" ? null : timeout, preset: extra.preset };
}

/** An argument as a shell would need it written, for showing only. */
function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command line, or the URL, in one line. */
export function transportSummary(transport: McpServerTransport): string {
  if (transport.kind === "http") return transport.url;
  return [transport.command, ...transport.args].map(quoted).join(" ");
}

export type StatusTone = "off" | "idle" | "busy" | "ok" | "bad";

/** The badge's tone for a server's state. */
export function statusTone(server: Pick<McpServer, "status">): StatusTone {
  switch (server.status.state) {
    case "disabled":
      return "off";
    case "stopped":
      return "idle";
    case "starting":
      return "busy";
    case "running":
      return "ok";
    case "failed":
      return "bad";
  }
}

/** The server a catalog tool id belongs to (`mcp__<server>__<tool>`), if any. */
export function serverOfTool(id: string): string | null {
  const match = /^mcp__(.+?)__./.exec(id);
  return match ? (match[1] ?? null) : null;
}

/** What a tool's source is read from. */
type ToolSourceOf = Pick<Tool, "id" | "source">;

/** Which tools the source filter keeps: all, one source, or one MCP server. */
export type SourceFilter = "all" | "builtin" | "endpoint" | "mcp" | `mcp:${string}`;

/** Where a tool comes from, as the source filter and the groups see it. */
export function sourceOf(tool: ToolSourceOf): { source: ToolSourceOf["source"]; server: string | null } {
  return { source: tool.source, server: tool.source === "mcp" ? serverOfTool(tool.id) : null };
}

export function keepsSource(filter: SourceFilter, tool: ToolSourceOf): boolean {
  const { source, server } = sourceOf(tool);
  if (filter === "all") return true;
  if (filter.startsWith("mcp:")) return server === filter.slice(4);
  return source === filter;
}
