// The Console's lines as sentences (issue 12, item 4): "Claude Code
// generated round 2 of «X thread» in «Morning brief»", not
// `session.generate_variant` and a raw detail. One sentence per operation
// in both languages; the person's own actions read "You …" (Spanish
// conjugates them: "Generaste …"). An operation this build does not know
// still gets a sentence, and its dotted name stays in the row's tooltip.

import type { TFunction } from "i18next";

import type { CanvasActivity as Activity } from "../../api";
import { clientSubject, isYou } from "../../app/names";

/** Operations with a sentence of their own (the part after `session.`). */
const KNOWN = [
  "create",
  "update",
  "delete",
  "generate_variant",
  "write_round",
  "generate_all",
  "add_item",
  "remove_item",
  "clear_selection",
  "add_variant",
  "update_variant",
  "remove_variant",
  "select_round",
  "export_variant",
  "save_preset",
  "register_source",
  "refresh_source",
] as const;

type Operation = (typeof KNOWN)[number];

/** What a sentence needs that a line may lack: with it missing, the
 * sentence for the operation would lie, so the generic one is used. */
const NEEDS: Partial<Record<Operation, (a: Activity) => boolean>> = {
  generate_variant: (a) => a.round != null,
  write_round: (a) => a.round != null,
  select_round: (a) => a.round != null,
  generate_all: (a) => a.count != null,
  clear_selection: (a) => a.count != null,
  refresh_source: (a) => a.count != null,
};

function operation(a: Activity): Operation | null {
  const op = a.tool.replace(/^session\./, "");
  const known = (KNOWN as readonly string[]).includes(op) ? (op as Operation) : null;
  return known && (NEEDS[known]?.(a) ?? true) ? known : null;
}

/** «Morning brief», or words for a canvas without a name or gone. */
export function canvasLabel(t: TFunction, a: Pick<Activity, "canvasId" | "canvasName">): string {
  if (a.canvasName) return `«${a.canvasName}»`;
  return a.canvasId ? t("names.canvas.untitled") : t("names.canvas.deleted");
}

/** The sentence for one line of the activity log. */
export function activitySentence(t: TFunction, a: Activity): string {
  const op = operation(a);
  const values = {
    who: clientSubject(t, a.client),
    canvas: canvasLabel(t, a),
    preset: a.presetId ? t(`canvas.presets.${a.presetId}`, { defaultValue: a.presetId }) : "",
    round: a.round ?? 0,
    title: a.detail,
    name: a.detail,
    context: isYou(a.client) ? "you" : undefined,
  };
  if (op === null) {
    const key = a.canvasId || a.canvasName ? "names.activity.other" : "names.activity.otherNoCanvas";
    return t(key, values);
  }
  // A rename to nothing is written "(no name)" by core.
  if (op === "update" && a.detail === "(no name)") return t("names.activity.updateCleared", values);
  if (a.count != null) return t(`names.activity.${op}`, { ...values, count: a.count });
  return t(`names.activity.${op}`, values);
}
