import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { api, type Change } from "../../api";

export const providerKeys = {
  providers: ["providers"] as const,
  models: ["models"] as const,
  modelsOf: (providerId: string) => ["models", providerId] as const,
  kinds: ["provider-kinds"] as const,
  workspace: ["workspace"] as const,
};

export const providersQuery = queryOptions({
  queryKey: providerKeys.providers,
  queryFn: api.listProviders,
});

export const modelsQuery = (providerId: string) =>
  queryOptions({
    queryKey: providerKeys.modelsOf(providerId),
    queryFn: () => api.listModels({ providerId }),
  });

export const kindsQuery = queryOptions({
  queryKey: providerKeys.kinds,
  queryFn: api.providerKinds,
  staleTime: Infinity,
});

export const workspaceQuery = queryOptions({
  queryKey: providerKeys.workspace,
  queryFn: api.workspaceInfo,
});

/** What to refetch when the backend reports a committed change. */
export function invalidateFor(client: QueryClient, change: Change) {
  if (change === "providers") void client.invalidateQueries({ queryKey: providerKeys.providers });
  if (change === "models") void client.invalidateQueries({ queryKey: providerKeys.models });
}
