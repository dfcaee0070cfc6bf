import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { teamBusApi, type ApiError, type BusMessage, type Change } from "../../api";

export const teamKeys = {
  all: ["team-bus"] as const,
  status: ["team-bus", "status"] as const,
  outbox: ["team-bus", "outbox"] as const,
  inbox: ["team-bus", "inbox"] as const,
  authors: ["team-bus", "authors"] as const,
};

/** Who is on the team bus (its directory), kept while the link is down. */
export const teamAuthorsQuery = queryOptions({ queryKey: teamKeys.authors, queryFn: teamBusApi.authors, retry: false, staleTime: 60_000 });

/** The team bus this desktop is on (null: none). */
export const teamStatusQuery = queryOptions({ queryKey: teamKeys.status, queryFn: teamBusApi.status });

export const outboxQuery = queryOptions({ queryKey: teamKeys.outbox, queryFn: teamBusApi.outbox });

/** The person's inbox on the team bus, read and unread, without marking
 * anything read; looked at again every 15 s while it is on screen. */
export const teamInboxQuery = queryOptions<BusMessage[], ApiError>({
  queryKey: teamKeys.inbox,
  queryFn: () => teamBusApi.inbox({ unread_only: false, peek: true, limit: 200 }),
  refetchInterval: 15_000,
  retry: false,
});

/** What to refetch when the backend reports a committed change. The inbox
 * there is not refetched on every link record (that would ask the bus
 * again at once); status and outbox are local reads. */
export function invalidateTeamFor(client: QueryClient, change: Change) {
  if (change === "team_bus") {
    void client.invalidateQueries({ queryKey: teamKeys.status });
    void client.invalidateQueries({ queryKey: teamKeys.outbox });
  }
}
