// An Activity entry as a person reads it: what ran, by name, who started
// it, how long it took and what it cost in tokens. Ids stay in tooltips.

import type { TFunction } from "i18next";

import type { ActivityEntry } from "../../api";
import { clientName } from "../../app/names";
import { toolTitle } from "../../app/toolTitle";

/** "Worker ran", "Chat with Heraldo", "Round 2 of X thread in «Morning brief»". */
export function entrySentence(t: TFunction, e: ActivityEntry): string {
  const name = e.title ?? t("activity.untitledCanvas");
  switch (e.kind) {
    case "generation":
      return t("activity.sentence.generation", {
        round: e.round ?? 1,
        preset: t(`canvas.presets.${e.preset ?? "custom"}`, { defaultValue: t("canvas.presets.custom") }),
        canvas: name,
      });
    case "approval":
      return t("activity.sentence.approval", { agent: name, tool: toolTitle(t, e.tool ?? "") });
    default:
      return t(`activity.sentence.${e.kind}`, { name });
  }
}

/** Who or what started it: "You", "You, from the command line", "Claude
 * Code", "Its schedule", "New mail or its schedule". */
export function startedBy(t: TFunction, e: ActivityEntry): string {
  const by = e.startedBy;
  switch (by.by) {
    case "person":
      return !by.client || by.client === "ui" ? t("names.you") : clientName(t, by.client);
    case "job":
      return t("activity.by.job");
    case "role":
      return t("activity.by.role");
  }
}

/** "850 ms", "4.2 s", "3 min". */
export function durationText(t: TFunction, ms: number | null): string | null {
  if (ms === null) return null;
  if (ms < 1000) return t("activity.duration.ms", { n: ms });
  if (ms < 60_000) return t("activity.duration.s", { n: Math.round(ms / 100) / 10 });
  return t("activity.duration.min", { n: Math.round(ms / 60_000) });
}

/** Tokens in and out, or null when the provider reported none. */
export function tokensText(t: TFunction, e: ActivityEntry): string | null {
  const { promptTokens, completionTokens } = e.usage;
  if (promptTokens === null && completionTokens === null) return null;
  return t("activity.tokens", { count: (promptTokens ?? 0) + (completionTokens ?? 0) });
}
