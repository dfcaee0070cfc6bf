// `${VAR}` references in an MCP server's settings, read the way the backend
// reads them (crates/colmena-core/src/mcp_servers/refs.rs), so the dialog can
// say what a reference does before anything is saved: the value of every
// reference of a URL server is sent to that URL's origin at each start, and
// Colmena's own variables (COLMENA_*) are refused — a copied configuration
// must not be able to send them anywhere.

import type { McpDraft, VarRow } from "./mcpDraft";

/** The prefix of Colmena's own variables, compared without case (Windows reads names that way). */
const RESERVED_PREFIX = "COLMENA_";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The names `text` refers to (`${NAME}` or `${NAME:-default}`), each once, in order. */
export function referenceNames(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\$\{([^}]*)\}/g)) {
    const name = (match[1] ?? "").split(":-")[0] ?? "";
    if (NAME.test(name) && !found.includes(name)) found.push(name);
  }
  return found;
}

/** Is `name` one of Colmena's own variables? */
export const isReserved = (name: string) => name.toUpperCase().startsWith(RESERVED_PREFIX);

/** `url` with each reference's default in its place; `null` while one has no default. */
function withDefaults(url: string): string | null {
  let unresolved = false;
  const out = url.replace(/\$\{([^}]*)\}/g, (whole: string, inner: string) => {
    const [name = "", ...rest] = inner.split(":-");
    if (!NAME.test(name)) return whole;
    if (rest.length === 0) {
      unresolved = true;
      return whole;
    }
    return rest.join(":-");
  });
  return unresolved ? null : out;
}

/** Where a URL server's values go: the origin of `url` once its defaults are
 * in, or the URL as written while a reference without a default is in it. */
export function originOf(url: string): string {
  const written = url.trim();
  const resolved = withDefaults(written);
  if (resolved !== null) {
    try {
      const origin = new URL(resolved).origin;
      if (origin && origin !== "null") return origin;
    } catch {
      // Not a URL yet: say it as written.
    }
  }
  return written;
}

/** The values of plain rows: a secret is used as written, so nothing in it is a reference. */
const plainValues = (rows: VarRow[]) => rows.filter((r) => !r.secret).map((r) => r.value);

const unique = (names: string[]) => [...new Set(names)];

/** The references a URL server sends to its origin at each start (from its
 * URL and its plain headers), Colmena's own left out; `null` for a program,
 * or when there are none. */
export function sentReferences(draft: McpDraft): { origin: string; names: string[] } | null {
  if (draft.kind !== "http") return null;
  const names = unique([draft.url, ...plainValues(draft.headers)].flatMap(referenceNames)).filter((n) => !isReserved(n));
  return names.length === 0 ? null : { origin: originOf(draft.url), names };
}

/** The references to Colmena's own variables in the fields the backend resolves: saving refuses them. */
export function reservedReferences(draft: McpDraft): string[] {
  const texts = draft.kind === "http" ? [draft.url, ...plainValues(draft.headers)] : [draft.command, draft.args, draft.cwd, ...plainValues(draft.env)];
  return unique(texts.flatMap(referenceNames)).filter(isReserved);
}
