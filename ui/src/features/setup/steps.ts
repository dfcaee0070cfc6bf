// The first run's three steps (issue 12) and the rules that decide what
// each starts with — kept out of the components so they have tests.

import type { CatalogPersona } from "../../api";

export const STEPS = ["connect", "specialists", "sample"] as const;
export type Step = (typeof STEPS)[number];

export function stepIndex(step: Step): number {
  return STEPS.indexOf(step);
}

/** The specialists offered checked: every one except those that run
 * programs on this computer, which are chosen only on purpose. */
export function defaultChoice(personas: readonly CatalogPersona[]): string[] {
  return personas.filter((p) => !p.runsPrograms).map((p) => p.id);
}

/** Flips `id` in the choice, keeping the catalog's order. */
export function toggleChoice(personas: readonly CatalogPersona[], chosen: readonly string[], id: string): string[] {
  const next = chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id];
  return personas.map((p) => p.id).filter((p) => next.includes(p));
}
