import { describe, expect, it } from "vitest";

import type { CanvasActivity } from "../../api";
import i18n from "../../i18n";
import { activitySentence } from "./sentences";

const en = i18n.getFixedT("en");
const es = i18n.getFixedT("es");

function line(over: Partial<CanvasActivity>): CanvasActivity {
  return {
    seq: 1,
    canvasId: "c1",
    client: "ui",
    tool: "session.add_item",
    detail: "",
    createdAt: "2026-11-03T10:00:00Z",
    canvasName: "Morning brief",
    presetId: null,
    round: null,
    model: null,
    count: null,
    ...over,
  };
}

describe("the Console's lines as sentences", () => {
  it("says who did what to which canvas, with the preset by name", () => {
    const generated = line({ client: "claude-code", tool: "session.generate_variant", presetId: "x-thread", round: 2, model: "gpt-4o" });
    expect(activitySentence(en, generated)).toBe("Claude Code generated round 2 of «X thread» in «Morning brief»");
    expect(activitySentence(es, generated)).toBe("Claude Code generó la ronda 2 de «Hilo de X» en «Morning brief»");
  });

  it("tells a round written by hand from a generated one", () => {
    const written = line({ tool: "session.write_round", presetId: "custom", round: 3 });
    expect(activitySentence(es, written)).toBe("Escribiste a mano la ronda 3 de «Personalizada» en «Morning brief»");
  });

  it("speaks to the person about their own actions (Spanish conjugates)", () => {
    const added = line({ client: "cli", tool: "session.add_item", detail: "Bees" });
    expect(activitySentence(en, added)).toBe("You added «Bees» to «Morning brief»");
    expect(activitySentence(es, added)).toBe("Añadiste «Bees» a «Morning brief»");
  });

  it("counts with plural forms", () => {
    const all = (count: number) => line({ tool: "session.generate_all", count });
    expect(activitySentence(en, all(1))).toBe("You generated the only variant of «Morning brief»");
    expect(activitySentence(en, all(3))).toBe("You generated all 3 variants of «Morning brief»");
    expect(activitySentence(es, line({ client: "cursor", tool: "session.clear_selection", count: 1 }))).toBe(
      "Cursor quitó 1 elemento de «Morning brief»",
    );
  });

  it("says a rename to nothing as taking the name off", () => {
    expect(activitySentence(en, line({ tool: "session.update", detail: "Bees" }))).toBe("You renamed a canvas to «Bees»");
    expect(activitySentence(es, line({ client: "cursor", tool: "session.update", detail: "(no name)" }))).toBe("Cursor quitó el nombre a un lienzo");
  });

  it("names a canvas without a name, or one that is gone", () => {
    expect(activitySentence(en, line({ tool: "session.export_variant", canvasName: null }))).toBe(
      "You exported a variant of an untitled canvas as markdown",
    );
    expect(activitySentence(es, line({ client: "agent", tool: "session.remove_item", detail: "Miel", canvasId: null, canvasName: null }))).toBe(
      "Un agente quitó «Miel» de un lienzo borrado",
    );
  });

  it("never shows a dotted operation name, even for one it does not know or a line missing its facts", () => {
    expect(activitySentence(en, line({ client: "cline", tool: "session.paint_it_black" }))).toBe("Cline worked on «Morning brief»");
    expect(activitySentence(es, line({ tool: "session.generate_variant", round: null }))).toBe("Trabajaste en «Morning brief»");
    expect(activitySentence(en, line({ tool: "session.rotate", canvasId: null, canvasName: null }))).toBe("You changed a preset or a source");
  });
});
