import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { runtimeApi, type Change, type RunFilter } from "../../api";

export const runtimeKeys = {
  swarms: ["swarms"] as const,
  runs: ["runs"] as const,
  resumable: ["runs", "resumable"] as const,
  conversations: ["conversations"] as const,
  history: (id: string) => ["conversations", "history", id] as const,
  defaultModel: ["models", "default"] as const,
  approvals: ["approvals"] as const,
};

export const approvalsQuery = queryOptions({ queryKey: runtimeKeys.approvals, queryFn: runtimeApi.pendingApprovals });

export const swarmsQuery = queryOptions({ queryKey: runtimeKeys.swarms, queryFn: runtimeApi.listSwarms });
export const resumableQuery = queryOptions({ queryKey: runtimeKeys.resumable, queryFn: runtimeApi.resumableRuns });
export const defaultModelQuery = queryOptions({ queryKey: runtimeKeys.defaultModel, queryFn: runtimeApi.defaultModel });

export const runsQuery = (filter: RunFilter) =>
  queryOptions({ queryKey: [...runtimeKeys.runs, filter] as const, queryFn: () => runtimeApi.listRuns(filter) });

export const runDetailQuery = (id: string) =>
  queryOptions({ queryKey: [...runtimeKeys.runs, "detail", id] as const, queryFn: () => runtimeApi.getRun(id) });

export const conversationsQuery = queryOptions({
  queryKey: runtimeKeys.conversations,
  queryFn: () => runtimeApi.listConversations({ withRuns: true }),
});

export const historyQuery = (id: string) =>
  queryOptions({ queryKey: runtimeKeys.history(id), queryFn: () => runtimeApi.conversationHistory(id) });

/** What to refetch when the backend reports a committed change. */
export function invalidateRuntimeFor(client: QueryClient, change: Change) {
  const keys: Record<string, readonly (readonly string[])[]> = {
    swarms: [runtimeKeys.swarms],
    runs: [runtimeKeys.runs, runtimeKeys.conversations, runtimeKeys.approvals],
    approvals: [runtimeKeys.approvals],
    conversations: [runtimeKeys.conversations],
    models: [runtimeKeys.defaultModel],
    agents: [runtimeKeys.swarms],
  };
  for (const key of keys[change] ?? []) void client.invalidateQueries({ queryKey: key });
}
