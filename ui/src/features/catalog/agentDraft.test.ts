import { describe, expect, it } from "vitest";

import { changedAgentFields, draftOf } from "./agentDraft";

describe("changedAgentFields", () => {
  it("counts real changes only: spaces around texts and the order of tools do not", () => {
    const saved = { ...draftOf(), name: "Diseño", tools: ["web_fetch", "fs_read"] };
    expect(changedAgentFields(saved, { ...saved, name: " Diseño ", tools: ["fs_read", "web_fetch"] })).toEqual([]);
    expect(changedAgentFields(saved, { ...saved, modelId: "ollama/llama3", permissions: { ...saved.permissions, run: "deny" } })).toEqual([
      "modelId",
      "permissions",
    ]);
  });
});
