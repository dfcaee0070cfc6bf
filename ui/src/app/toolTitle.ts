// Tools by their title, not their id (issue 37, item 6): "Run a command",
// with `cli_exec` secondary (in mono, or a tooltip). A built-in tool's
// title is in `locales/<lang>/toolTitles.json` (a Rust test holds every
// tool to having one in each language); an MCP server's tool
// (`mcp__server__name`) reads "name (server)"; anything else, its id.

import type { TFunction } from "i18next";

export function toolTitle(t: TFunction, id: string): string {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(id);
  if (mcp) return `${mcp[2]} (${mcp[1]})`;
  return t(`toolTitles.${id}`, { defaultValue: id });
}
