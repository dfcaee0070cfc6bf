// What "connect a model" sends to the backend (issue 12): from a server
// found on this machine, or from a pasted key for one of the usual hosted
// providers. Kept out of the component so each rule has a test.

import type { ConnectModel, LocalServer, ProviderKind } from "../../api";

export type KeyPresetId = "openai" | "anthropic" | "openrouter";

export interface KeyPreset {
  id: KeyPresetId;
  name: string;
  kind: ProviderKind;
  /** Null: the kind's default endpoint. */
  baseUrl: string | null;
  /** A small, cheap model to start with; the person may change it. */
  model: string;
  /** Where the key is made, shown as a hint. */
  keysAt: string;
}

export const KEY_PRESETS: readonly KeyPreset[] = [
  { id: "openai", name: "OpenAI", kind: "openai_compatible", baseUrl: null, model: "gpt-4o-mini", keysAt: "platform.openai.com/api-keys" },
  { id: "anthropic", name: "Anthropic", kind: "anthropic", baseUrl: null, model: "claude-3-5-haiku-latest", keysAt: "console.anthropic.com/settings/keys" },
  {
    id: "openrouter",
    name: "OpenRouter",
    kind: "openai_compatible",
    baseUrl: "https://openrouter.ai/api/v1",
    model: "openrouter/auto",
    keysAt: "openrouter.ai/keys",
  },
];

export function keyPreset(id: KeyPresetId): KeyPreset {
  return KEY_PRESETS.find((p) => p.id === id) ?? KEY_PRESETS[0]!;
}

/** Every model the server lists, the chosen one first (it is the one tested). */
export function fromServer(server: LocalServer, chosen: string): ConnectModel {
  const first = server.models.includes(chosen) ? chosen : (server.models[0] ?? chosen);
  return {
    name: server.name,
    kind: server.providerKind,
    baseUrl: server.baseUrl,
    apiKey: null,
    models: [first, ...server.models.filter((m) => m !== first)],
  };
}

/** The input for a pasted key, or null while the key or model is missing. */
export function fromKey(preset: KeyPreset, key: string, model: string): ConnectModel | null {
  const cleanKey = key.trim();
  const cleanModel = model.trim();
  if (!cleanKey || !cleanModel) return null;
  return { name: preset.name, kind: preset.kind, baseUrl: preset.baseUrl, apiKey: cleanKey, models: [cleanModel] };
}
