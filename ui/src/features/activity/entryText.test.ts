import { beforeEach, describe, expect, it } from "vitest";

import type { ActivityEntry } from "../../api";
import i18n from "../../i18n";
import { durationText, entrySentence, startedBy, tokensText } from "./entryText";

function entry(over: Partial<ActivityEntry>): ActivityEntry {
  return {
    key: "run:1",
    kind: "agent",
    status: "completed",
    title: "Worker",
    detail: "Summarise the news",
    preset: null,
    round: null,
    model: null,
    tool: null,
    startedBy: { by: "person", id: "owner", name: "owner", client: "ui" },
    at: new Date().toISOString(),
    finishedAt: null,
    durationMs: 1234,
    usage: { promptTokens: 84, completionTokens: 9 },
    preview: "Done.",
    needsYou: false,
    link: { runId: "1", canvasId: null, variantId: null, threadId: null, jobId: null, roleId: null, approvalId: null },
    ...over,
  };
}

describe("an Activity entry in words", () => {
  beforeEach(async () => {
    await i18n.changeLanguage("en");
  });

  it("names what ran, never an id", () => {
    const t = i18n.t.bind(i18n);
    expect(entrySentence(t, entry({}))).toBe("Worker ran");
    expect(entrySentence(t, entry({ kind: "generation", title: "Morning brief", preset: "x-thread", round: 2 }))).toBe("Round 2 of X thread in «Morning brief»");
    expect(entrySentence(t, entry({ kind: "generation", title: null, preset: "x-thread", round: 1 }))).toBe("Round 1 of X thread in «an untitled canvas»");
    expect(entrySentence(t, entry({ kind: "wake_up", title: "Ambrosio" }))).toBe("Ambrosio woke up to read its mail");
    expect(entrySentence(t, entry({ kind: "job", title: "Digest" }))).toBe("Scheduled job «Digest»");
  });

  it("says who started it", () => {
    const t = i18n.t.bind(i18n);
    expect(startedBy(t, entry({}))).toBe("You");
    expect(startedBy(t, entry({ startedBy: { by: "person", id: "owner", name: "owner", client: "cli" } }))).toBe("You, from the command line");
    expect(startedBy(t, entry({ startedBy: { by: "person", id: "owner", name: "owner", client: "claude-code" } }))).toBe("Claude Code");
    expect(startedBy(t, entry({ startedBy: { by: "job", id: "digest", name: "Digest" } }))).toBe("On its schedule");
  });

  it("shows time and tokens, and nothing for what was not reported", () => {
    const t = i18n.t.bind(i18n);
    expect(durationText(t, 850)).toBe("850 ms");
    expect(durationText(t, 1234)).toBe("1.2 s");
    expect(durationText(t, 180_000)).toBe("3 min");
    expect(durationText(t, null)).toBeNull();
    expect(tokensText(t, entry({}))).toBe("93 tokens");
    expect(tokensText(t, entry({ usage: { promptTokens: null, completionTokens: null } }))).toBeNull();
  });

  it("speaks Spanish", async () => {
    await i18n.changeLanguage("es");
    const t = i18n.t.bind(i18n);
    expect(entrySentence(t, entry({ kind: "chat", title: "Heraldo" }))).toBe("Chat con Heraldo");
    expect(startedBy(t, entry({ startedBy: { by: "role", id: "ambrosio", name: "Ambrosio" } }))).toBe("Su horario o correo nuevo");
    await i18n.changeLanguage("en");
  });
});
