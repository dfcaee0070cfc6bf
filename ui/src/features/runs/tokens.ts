// Token counts as people read them (issue 14): a count the provider did not
// report — llama.cpp's server streams none — shows "—", never 0.

import type { TFunction } from "i18next";

import type { Usage } from "../../api";

/** What the provider reported of a run's (or a round's) tokens. */
export interface TokenCounts {
  promptTokens: number | null;
  completionTokens: number | null;
}

/** One count: the number, or "—" when it was not reported. */
export function tokenCount(count: number | null | undefined): string {
  return count === null || count === undefined ? "—" : String(count);
}

/** Both counts together; `null` when neither was reported. */
export function tokenTotal(counts: TokenCounts): number | null {
  if (counts.promptTokens === null && counts.completionTokens === null) return null;
  return (counts.promptTokens ?? 0) + (counts.completionTokens ?? 0);
}

/** True when the provider reported no count at all. */
export function notReported(counts: TokenCounts): boolean {
  return counts.promptTokens === null && counts.completionTokens === null;
}

/** A run's usage line: "42 tokens in · 5 out", "— in · 5 out", or a plain
 * "not reported" — never "0 tokens in, 0 out" for a silent server. */
export function usageText(t: TFunction, usage: Usage): string {
  const { promptTokens: input, completionTokens: output } = usage;
  if (input === null && output === null) return t("runs.tokens.notReported");
  if (input !== null && output !== null) return t("runs.usage", { input, output });
  return t("runs.tokens.partial", { input: tokenCount(input), output: tokenCount(output) });
}
