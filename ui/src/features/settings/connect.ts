import { queryOptions } from "@tanstack/react-query";

import { inboxApi, type ConnectRequest } from "../../api";

/** The configuration for one client, transport and author (never minting:
 * a token is minted only when the person asks, see ConnectSection). */
export const connectQuery = (request: ConnectRequest) =>
  queryOptions({
    queryKey: ["mcp-client-config", request.client, request.transport, request.author] as const,
    queryFn: () => inboxApi.mcpClientConfig({ ...request, mintToken: false }),
  });
