// The first run's three steps (issue 12) and the rules that decide what
// each starts with — kept out of the components so they have tests.

import type { CatalogPersona } from "../../api";

export const STEPS = ["connect", "specialists", "sample"] as const;
export type Step = (typeof STEPS)[number];

export function stepIndex(step: Step): number {
  return STEPS.indexOf(step);
}

/** The specialists offered checked: every one except those that run
 * programs on this computer, which are chosen only on purpose, and those
 * whose tools are not installed yet (they could not do their job). */
export function defaultChoice(personas: readonly CatalogPersona[]): string[] {
  return personas.filter((p) => !p.runsPrograms && p.missing.length === 0).map((p) => p.id);
}

/** What a missing tool pattern needs, by name: `mcp__playwright__*` is the
 * Playwright add-on (an MCP server); anything else is named as it is. */
export function addOnOf(pattern: string): string {
  const server = /^mcp__([^_]+(?:_[^_]+)*)__/.exec(pattern)?.[1];
  if (!server) return pattern;
  return server.charAt(0).toUpperCase() + server.slice(1);
}

/** Flips `id` in the choice, keeping the catalog's order. */
export function toggleChoice(personas: readonly CatalogPersona[], chosen: readonly string[], id: string): string[] {
  const next = chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id];
  return personas.map((p) => p.id).filter((p) => next.includes(p));
}
