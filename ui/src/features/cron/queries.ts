import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { cronApi, type Change } from "../../api";

export const cronKeys = {
  all: ["cron"] as const,
  jobs: ["cron", "jobs"] as const,
  history: (id: string) => ["cron", "history", id] as const,
  scheduler: ["cron", "scheduler"] as const,
  preview: (schedule: string, zone: string) => ["cron", "preview", schedule, zone] as const,
};

export const cronJobsQuery = queryOptions({ queryKey: cronKeys.jobs, queryFn: cronApi.list });

export const cronHistoryQuery = (id: string) =>
  queryOptions({ queryKey: cronKeys.history(id), queryFn: () => cronApi.history(id, 100) });

/** Whether a scheduler runs (here or in `colmena serve`); looked at again
 * every half minute, since another process may start or stop — every two
 * seconds while none runs, so the warning goes as soon as one starts (the
 * app's own starts just after its first frame). */
export const schedulerQuery = queryOptions({
  queryKey: cronKeys.scheduler,
  queryFn: cronApi.scheduler,
  refetchInterval: (query) => (query.state.data?.running ? 30_000 : 2_000),
});

/** What to refetch when the backend reports a committed change. */
export function invalidateCronFor(client: QueryClient, change: Change) {
  if (change === "cron_jobs") void client.invalidateQueries({ queryKey: cronKeys.all });
  // A job shows the name of what it runs.
  if (change === "agents" || change === "swarms" || change === "authors") {
    void client.invalidateQueries({ queryKey: cronKeys.jobs });
  }
}
