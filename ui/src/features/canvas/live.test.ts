// The streamed text stays on the card until the refetched canvas holds the
// round it became (issue 12, item 2: a card read "Not generated" in the
// middle of a generation because "done" dropped the text before the refetch).

import { describe, expect, it } from "vitest";

import type { CanvasEvent, Round, Variant } from "../../api";
import { nextLive, shownLive, type Live } from "./live";

const round = (index: number, output: string) => ({ id: `r${index}`, variantId: "v", index, output, byHand: false }) as Round;
const variant = (roundCount: number) => ({ id: "v", roundCount, activeRound: roundCount - 1 }) as Variant;

function play(events: CanvasEvent[]): Record<string, Live> {
  return events.reduce(nextLive, {});
}

describe("live generation text", () => {
  const streamed: CanvasEvent[] = [
    { type: "queued", variantId: "v" },
    { type: "streaming", variantId: "v", provider: "scripted", model: "gpt-test" },
    { type: "delta", variantId: "v", text: "Las abejas " },
    { type: "delta", variantId: "v", text: "polinizan." },
  ];

  it("accumulates the deltas while streaming", () => {
    expect(play(streamed).v).toEqual({ status: "streaming", text: "Las abejas polinizan.", model: "gpt-test" });
  });

  it("keeps the text after done, until the canvas has the new round", () => {
    const after = play([...streamed, { type: "done", variantId: "v", round: round(0, "Las abejas polinizan.") }]);
    // The canvas fetched before done has no round yet: the text stays.
    expect(shownLive(after.v, variant(0))?.text).toBe("Las abejas polinizan.");
    // The refetch landed with the round: the card shows the variant's own.
    expect(shownLive(after.v, variant(1))).toBeUndefined();
  });

  it("a second round waits for the second round, not the first", () => {
    const after = play([...streamed, { type: "done", variantId: "v", round: round(1, "Otra versión.") }]);
    expect(shownLive(after.v, variant(1))?.text).toBe("Otra versión.");
    expect(shownLive(after.v, variant(2))).toBeUndefined();
  });

  it("a failure drops the half-written text at once", () => {
    const after = play([...streamed, { type: "failed", variantId: "v", error: { code: "upstream", message: "x" } } as CanvasEvent]);
    expect(after.v).toBeUndefined();
  });
});
