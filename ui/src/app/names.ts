// Names, not ids (issue 12, item 4): the one place that turns the ids the
// backend speaks in — a client (`ui`, `cli`, `claude-code`…), an agent or a
// swarm id, a run — into what a person reads. Ids stay reachable through
// `CopyId` and tooltips; they are never the label.

import { useCallback } from "react";
import { useQuery } from "@tanstack/react-query";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";

import type { ActivityClient as Client, RunKind } from "../api";
import { useAgentName } from "../features/catalog/agentName";
import { agentsQuery } from "../features/catalog/queries";
import { swarmsQuery } from "../features/runs/queries";

/** Clients named by their product: the same in every language. */
const BRANDS: Partial<Record<Client, string>> = {
  "claude-code": "Claude Code",
  cursor: "Cursor",
  "claude-desktop": "Claude Desktop",
  cline: "Cline",
};

/** Spellings that reach the UI as free text (a round's `client`) for a
 * client the enum names otherwise. */
const ALIASES: Record<string, Client> = { mcp: "other-mcp" };

const KNOWN: readonly Client[] = ["ui", "cli", "http", "agent", "claude-code", "cursor", "claude-desktop", "cline", "other-mcp"];

/** The client a free-text id stands for, or null for one this build does not know. */
export function toClient(id: string): Client | null {
  const client = ALIASES[id] ?? id;
  return (KNOWN as readonly string[]).includes(client) ? (client as Client) : null;
}

/** The person themself asked (in the window or from the command line). */
export function isYou(id: string): boolean {
  const client = toClient(id);
  return client === "ui" || client === "cli";
}

/** Who asked, as a label: "You, in Colmena", "Claude Code", "An MCP client".
 * An id this build does not know is shown as it came. */
export function clientName(t: TFunction, id: string): string {
  const client = toClient(id);
  if (!client) return id;
  return BRANDS[client] ?? t(`names.client.${client}`);
}

/** Who asked, as the subject of a sentence about someone else: "Claude
 * Code", "An agent". (The person's own actions have sentences of their own.) */
export function clientSubject(t: TFunction, id: string): string {
  const client = toClient(id);
  if (!client) return id;
  return BRANDS[client] ?? t(`names.subject.${client}`);
}

/** A bus author as people read it: the person is "You" while their author
 * still carries the workspace's id as its name (`owner`), "Ana (you)" once
 * named; a role by its name. */
export function authorName(t: TFunction, author: { id: string; name: string; isOwner: boolean }): string {
  if (!author.isOwner) return author.name;
  return author.name === author.id ? t("names.you") : t("inbox.you", { name: author.name });
}

/** Agents and swarms by name, for any view; an id nobody knows any more
 * (deleted) is shown as it is, so it can still be told apart. */
export function useNames() {
  const { t } = useTranslation();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data;
  const swarms = useQuery(swarmsQuery).data;
  const agent = useCallback(
    (id: string) => {
      const found = agents?.find((a) => a.id === id);
      return found ? agentName(found) : id;
    },
    [agents, agentName],
  );
  const swarm = useCallback((id: string) => swarms?.find((s) => s.id === id)?.name ?? id, [swarms]);
  const client = useCallback((id: string) => clientName(t, id), [t]);
  /** What a run ran: its agent's or its swarm's name. */
  const target = useCallback((kind: RunKind, id: string) => (kind === "swarm" ? swarm(id) : agent(id)), [agent, swarm]);
  return { agent, swarm, client, target };
}
