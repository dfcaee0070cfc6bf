import { describe, expect, it } from "vitest";

import type { LocalServer } from "../../api";
import { KEY_PRESETS, fromKey, fromServer, keyPreset } from "./connectInput";

const lmStudio: LocalServer = {
  kind: "lm_studio",
  name: "LM Studio",
  providerKind: "openai_compatible",
  baseUrl: "http://127.0.0.1:1234/v1",
  models: ["qwen2.5-7b", "llama-3.2-3b", "phi-4"],
  providerId: null,
};

describe("connect a model", () => {
  it("adds every model a server lists, the chosen one first", () => {
    expect(fromServer(lmStudio, "llama-3.2-3b")).toEqual({
      name: "LM Studio",
      kind: "openai_compatible",
      baseUrl: "http://127.0.0.1:1234/v1",
      apiKey: null,
      models: ["llama-3.2-3b", "qwen2.5-7b", "phi-4"],
    });
  });

  it("falls back to the server's first model when the choice is not listed", () => {
    expect(fromServer(lmStudio, "gone").models[0]).toBe("qwen2.5-7b");
  });

  it("needs a key and a model, and trims both", () => {
    const openai = keyPreset("openai");
    expect(fromKey(openai, "  ", "gpt-4o-mini")).toBeNull();
    expect(fromKey(openai, "sk-abc", " ")).toBeNull();
    expect(fromKey(openai, " sk-abc ", " gpt-4o-mini ")).toEqual({
      name: "OpenAI",
      kind: "openai_compatible",
      baseUrl: null,
      apiKey: "sk-abc",
      models: ["gpt-4o-mini"],
    });
  });

  it("sends OpenRouter to its own OpenAI-compatible endpoint", () => {
    const input = fromKey(keyPreset("openrouter"), "sk-or-1", "openrouter/auto");
    expect(input?.baseUrl).toBe("https://openrouter.ai/api/v1");
    expect(input?.kind).toBe("openai_compatible");
    expect(new Set(KEY_PRESETS.map((p) => p.id)).size).toBe(KEY_PRESETS.length);
  });
});
