// An agent as the editor holds it while it is being changed, and which of
// its fields differ from what is saved — what the Save bar counts.

import type { Agent, Permissions } from "../../api";
import { changedKeys } from "../../components/SaveBar";
import { DEFAULT_PERMISSIONS } from "./PermissionsFields";

export interface AgentDraft {
  name: string;
  description: string;
  systemPrompt: string;
  /** "" for none. */
  modelId: string;
  /** Tool ids and patterns, as written. */
  tools: string[];
  skills: string[];
  /** MCP servers whose every tool the agent is given. */
  mcpServers: string[];
  /** The agents it may hand work to outside a swarm. */
  delegates: string[];
  permissions: Permissions;
}

/** The draft of a saved agent, or of a new one. */
export function draftOf(agent?: Agent): AgentDraft {
  return {
    name: agent?.name ?? "",
    description: agent?.description ?? "",
    systemPrompt: agent?.systemPrompt ?? "",
    modelId: agent?.modelId ?? "",
    tools: agent?.toolPatterns ?? [],
    skills: agent?.skills ?? [],
    mcpServers: agent?.mcpServers ?? [],
    delegates: agent?.delegates ?? [],
    permissions: agent?.permissions ?? DEFAULT_PERMISSIONS,
  };
}

/** The translation key of each field's label. */
export const DRAFT_LABELS: Record<keyof AgentDraft, string> = {
  name: "agents.fields.name",
  description: "agents.fields.description",
  systemPrompt: "agents.fields.systemPrompt",
  modelId: "agents.fields.model",
  tools: "agents.fields.tools",
  skills: "agents.fields.skills",
  mcpServers: "mcp.agent.field",
  delegates: "agents.fields.delegates",
  permissions: "permissions.title",
};

/** The fields changed since `saved`. Tools and skills compare as sets;
 * surrounding spaces in the texts do not count. */
export function changedAgentFields(saved: AgentDraft, draft: AgentDraft): (keyof AgentDraft)[] {
  const trimmed = (d: AgentDraft) => ({ ...d, name: d.name.trim(), description: d.description.trim(), systemPrompt: d.systemPrompt.trim() });
  return changedKeys(trimmed(saved), trimmed(draft));
}
