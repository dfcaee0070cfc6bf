import type { ProviderKind } from "../../api";

/** Example names shown as placeholders, per kind. */
export const KIND_EXAMPLES: Record<ProviderKind, { name: string; model: string }> = {
  openai_compatible: { name: "OpenAI", model: "gpt-4o-mini" },
  anthropic: { name: "Anthropic", model: "claude-sonnet-4-5" },
  ollama: { name: "Ollama", model: "llama3.1:8b" },
  local: { name: "Local", model: "smollm2-135m" },
};

export const KIND_MONOGRAMS: Record<ProviderKind, string> = {
  openai_compatible: "AI",
  anthropic: "A",
  ollama: "O",
  local: "L",
};
