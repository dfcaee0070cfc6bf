import { queryOptions } from "@tanstack/react-query";

import { inboxApi, type AiClient, type ClientConfig, type ConnectRequest, type McpTransport } from "../../api";

/** The configuration for one client, transport and author (never minting:
 * a token is minted only when the person asks, see ConnectSection). */
export const connectQuery = (request: ConnectRequest) =>
  queryOptions({
    queryKey: ["mcp-client-config", request.client, request.transport, request.author] as const,
    queryFn: () => inboxApi.mcpClientConfig({ ...request, mintToken: false }),
  });

/** Claude Desktop's config file starts local programs only: whatever was
 * picked before, it connects over stdio. */
export function transportFor(client: AiClient, picked: McpTransport): McpTransport {
  return client === "claude-desktop" ? "stdio" : picked;
}

/** A configuration minted for exactly this choice, else null: changing the
 * client, the connection or the author hides a token minted for another. */
export function mintedFor(minted: ClientConfig | undefined, request: ConnectRequest): ClientConfig | null {
  if (!minted) return null;
  const same = minted.client === request.client && minted.transport === request.transport && minted.author === request.author;
  return same ? minted : null;
}
