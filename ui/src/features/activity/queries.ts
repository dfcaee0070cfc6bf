// The Activity timeline's queries: one page per filter, refetched when
// anything it shows changes (runs, rounds, job fires, wake-ups, approvals).

import { infiniteQueryOptions, type QueryClient } from "@tanstack/react-query";

import { activityApi, type ActivityKind, type Change } from "../../api";

export const activityKeys = { all: ["activity"] as const };

export interface TimelineFilter {
  kinds: ActivityKind[];
  needsYou: boolean;
}

const PAGE = 50;

export const timelineQuery = (filter: TimelineFilter) =>
  infiniteQueryOptions({
    queryKey: [...activityKeys.all, filter] as const,
    queryFn: ({ pageParam }) => activityApi.timeline({ kinds: filter.kinds, needsYou: filter.needsYou, before: pageParam, limit: PAGE }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.more ? (last.entries[last.entries.length - 1]?.at ?? null) : null),
  });

const SOURCES: readonly Change[] = ["runs", "approvals", "canvases", "cron_jobs", "authors", "messages", "agents", "swarms"];

/** What to refetch when the backend reports a committed change. */
export function invalidateActivityFor(client: QueryClient, change: Change) {
  if (SOURCES.includes(change)) void client.invalidateQueries({ queryKey: activityKeys.all });
}
