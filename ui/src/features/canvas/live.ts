// What a generation in progress has streamed, per variant. The streamed text
// stays on the card until the canvas, refetched, holds the round it became:
// dropping it on "done" (before the refetch lands) would flash the previous
// round, or "Not generated", in the middle of a generation.

import type { CanvasEvent, Variant } from "../../api";

/** A variant's generation as the window saw it. */
export interface Live {
  text: string;
  /** `saved`: done, the text is `round` of the variant (0-based). */
  status: "queued" | "streaming" | "saved";
  model?: string;
  round?: number;
}

/** The generations after one more event. */
export function nextLive(all: Record<string, Live>, event: CanvasEvent): Record<string, Live> {
  const was = all[event.variantId] ?? { text: "", status: "queued" as const };
  switch (event.type) {
    case "queued":
      return { ...all, [event.variantId]: { text: "", status: "queued" } };
    case "streaming":
      return { ...all, [event.variantId]: { text: "", status: "streaming", model: event.model } };
    case "delta":
      return { ...all, [event.variantId]: { ...was, status: "streaming", text: was.text + event.text } };
    case "done":
      return { ...all, [event.variantId]: { ...was, status: "saved", text: event.round.output, round: event.round.index } };
    case "failed": {
      const rest = { ...all };
      delete rest[event.variantId];
      return rest;
    }
  }
}

/** What the card shows live: nothing once the variant has the saved round. */
export function shownLive(live: Live | undefined, variant: Variant): Live | undefined {
  if (live?.status === "saved" && live.round !== undefined && variant.roundCount > live.round) return undefined;
  return live;
}
