import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { api, endpointsApi, mcpApi, type Change } from "../../api";

export const catalogKeys = {
  agents: ["agents"] as const,
  tools: ["tools"] as const,
  skills: ["skills"] as const,
  diskSkills: ["disk-skills"] as const,
  ethics: ["ethics"] as const,
  setup: ["setup"] as const,
  memories: ["memories"] as const,
  mcpServers: ["mcp-servers"] as const,
  mcpPresets: ["mcp-presets"] as const,
  endpoints: ["endpoints"] as const,
  expansion: (patterns: string[]) => ["tool-expansion", ...patterns] as const,
  prompt: (id: string) => ["agent-prompt", id] as const,
};

export const agentsQuery = queryOptions({ queryKey: catalogKeys.agents, queryFn: api.listAgents });
export const toolsQuery = queryOptions({ queryKey: catalogKeys.tools, queryFn: () => api.listTools({}) });
export const skillsQuery = queryOptions({ queryKey: catalogKeys.skills, queryFn: api.listSkills });
export const diskSkillsQuery = queryOptions({ queryKey: catalogKeys.diskSkills, queryFn: api.listDiskSkills });
export const ethicsQuery = queryOptions({ queryKey: catalogKeys.ethics, queryFn: api.listEthics });
export const mcpServersQuery = queryOptions({ queryKey: catalogKeys.mcpServers, queryFn: () => mcpApi.list() });
export const mcpPresetsQuery = queryOptions({ queryKey: catalogKeys.mcpPresets, queryFn: () => mcpApi.presets(), staleTime: 60_000 });
export const endpointsQuery = queryOptions({ queryKey: catalogKeys.endpoints, queryFn: () => endpointsApi.list() });
export const setupQuery = queryOptions({ queryKey: catalogKeys.setup, queryFn: api.setupStatus });
export const enabledModelsQuery = queryOptions({
  queryKey: ["models", "enabled"] as const,
  queryFn: () => api.listModels({ enabledOnly: true }),
});

export const expansionQuery = (patterns: string[]) =>
  queryOptions({
    queryKey: catalogKeys.expansion(patterns),
    queryFn: () => api.expandToolPatterns(patterns),
    staleTime: 30_000,
  });

/** What to refetch when the backend reports a committed change. */
export function invalidateCatalogFor(client: QueryClient, change: Change) {
  const keys: Record<string, readonly (readonly string[])[]> = {
    agents: [catalogKeys.agents, catalogKeys.setup, ["agent-prompt"]],
    tools: [catalogKeys.tools, catalogKeys.setup, ["tool-expansion"], catalogKeys.agents, catalogKeys.mcpServers],
    skills: [catalogKeys.skills, catalogKeys.diskSkills, catalogKeys.setup, ["agent-prompt"]],
    ethics: [catalogKeys.ethics, ["agent-prompt"]],
    memories: [catalogKeys.memories],
    // The models on this computer too (loaded, unloaded, downloaded).
    models: [["models"], ["local-models"]],
    // A server's state or configuration; its tools arrive as `tools`.
    mcp_servers: [catalogKeys.mcpServers, catalogKeys.tools, ["tool-expansion"]],
    // An endpoint's definition; its tool arrives as `tools`.
    endpoints: [catalogKeys.endpoints, catalogKeys.tools, ["tool-expansion"]],
  };
  for (const key of keys[change] ?? []) void client.invalidateQueries({ queryKey: key });
}

/** Splits what was typed in the tool-pattern field: commas or spaces. */
export function parsePatterns(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((p) => p.trim()).filter(Boolean))];
}
